import Foundation
import LegibleCore
import LegibleTesseract
import Testing

/// Serialized: each recognition already uses both cores through OpenMP.
@Suite(.serialized) struct TesseractEngineTests {
    /// Tesseract's word images go through Legible's pixWriteMem (PNM, no zlib per word): the
    /// interposition holds in a program that links LegibleTesseract, as legibled does.
    @Test func wordImagesSkipPNGCompression() {
        #expect(TesseractEngine.wordImagesUncompressed)
    }

    @Test func characterErrorRateCounts() {
        #expect(characterErrorRate("kitten", truth: "sitting") == 3.0 / 7.0)
        #expect(characterErrorRate("abc", truth: "abc") == 0)
        #expect(characterErrorRate("", truth: "abcd") == 1)
        #expect(characterErrorRate("abXd", truth: "abcd") == 0.25)
    }

    /// The bound: CER < 5 % on the camera-like fixtures, for both models Debian ships for Latin.
    @Test(arguments: ["camera-720p", "label-640x480"], ["eng", "Latin"])
    func readsFixturesWithLowErrorRate(fixture: String, model: String) throws {
        let expected = try truth(fixture)
        let result = try engine(model).recognize(try gray(fixture), request: RecognitionRequest())
        let cer = characterErrorRate(result.text, truth: expected.text)
        #expect(cer < 0.05, "CER \(cer): \(result.text.debugDescription)")
        #expect(result.imageWidth == expected.width && result.imageHeight == expected.height)
    }

    @Test(arguments: ["camera-720p", "label-640x480"])
    func wordBoxesMatchTheTruth(fixture: String) throws {
        let expected = try truth(fixture)
        let words = try engine().recognize(try gray(fixture), request: RecognitionRequest()).lines.flatMap(\.elements)
        for word in expected.lines.flatMap(\.words) {
            let truthBox = word.rect
            let match = words.first { recognized in
                recognized.text == word.text
                    && (recognized.frame.overlapRatio(truthBox) > 0.3
                        || truthBox.containsPoint(
                            x: recognized.frame.x + recognized.frame.width / 2,
                            y: recognized.frame.y + recognized.frame.height / 2))
            }
            #expect(match != nil, "no recognized word '\(word.text)' at \(truthBox)")
        }
    }

    @Test func blankImageGivesEmptyText() throws {
        let result = try engine().recognize(try gray("blank-320x240"), request: RecognitionRequest())
        #expect(result.text == "")
        #expect(result.blocks.isEmpty)
        #expect(result.imageWidth == 320 && result.imageHeight == 240)
    }

    /// Issue 14: on a page without words, reading the choice iterator aborted the process
    /// (Tesseract's ASSERT_HOST). Candidates and symbols on the two reported blank frames, in
    /// every mode and level, give empty text; the same engine then still reads.
    @Test(arguments: [RecognitionMode.text, .document], [RecognitionLevel.fast, .accurate])
    func blankFramesWithCandidatesGiveEmptyText(mode: RecognitionMode, level: RecognitionLevel) throws {
        let engine = try engine()
        let request = RecognitionRequest(mode: mode, level: level, includeSymbols: true, maxCandidates: 3)
        let white64 = GrayImage(
            width: 64, height: 64, bytesPerRow: 64,
            pixels: [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("blank-white-64x64.gray8"))))
        for image in [try gray("blank-white-640x480"), white64] {
            let result = try engine.recognize(image, request: request)
            #expect(result.text == "" && result.blocks.isEmpty)
        }
        let label = try engine.recognize(try gray("label-640x480"), request: request)
        #expect(label.text.contains("Model X200"), "\(label.text.debugDescription)")
    }

    /// Issue 18: Tesseract's page layout cannot be stopped, and a large frame of random black
    /// and white pixels held an engine for minutes. Such a frame is refused at once; a large
    /// frame of text (the 720p fixture on a 1400×900 canvas, past the 1 MP check) is read.
    @Test(arguments: [RecognitionMode.text, .document])
    func largeNoiseIsRefusedBeforeLayoutAndLargeTextIsRead(mode: RecognitionMode) throws {
        let engine = try engine()
        var seed: UInt64 = 7
        let noise = GrayImage(
            width: 1200, height: 1000, bytesPerRow: 1200,
            pixels: (0..<1_200_000).map { _ in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return seed >> 63 == 0 ? 0 : 255
            })
        let clock = ContinuousClock()
        let started = clock.now
        do {
            _ = try engine.recognize(noise, request: RecognitionRequest(mode: mode))
            Issue.record("a 1200x1000 noise frame was analysed")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("noise"), "\(error)")
        }
        #expect(clock.now - started < .milliseconds(500))
        #expect((engine.lastNoise ?? 0) > 0.45)

        let camera = try gray("camera-720p")
        var canvas = GrayImage(
            width: 1400, height: 900, bytesPerRow: 1400, pixels: [UInt8](repeating: 255, count: 1400 * 900))
        for y in 0..<camera.height {
            for x in 0..<camera.width {
                canvas.pixels[(y + 90) * 1400 + x + 60] = camera.pixels[y * camera.bytesPerRow + x]
            }
        }
        let text = try engine.recognize(canvas, request: RecognitionRequest(mode: mode)).text
        let cer = characterErrorRate(text, truth: try truth("camera-720p").text)
        #expect(cer < 0.1, "CER \(cer): \(text.debugDescription)")
        #expect((engine.lastNoise ?? 1) < 0.1)
    }

    @Test func emptyImageGivesEmptyText() throws {
        let result = try engine().recognize(
            GrayImage(width: 0, height: 0, bytesPerRow: 0, pixels: []), request: RecognitionRequest())
        #expect(result.text == "" && result.blocks.isEmpty)
    }

    @Test func oversizedImageIsInvalidArgument() throws {
        let wide = GrayImage(width: 32768, height: 1, bytesPerRow: 32768, pixels: [UInt8](repeating: 200, count: 32768))
        let engine = try engine()
        do {
            _ = try engine.recognize(wide, request: RecognitionRequest())
            Issue.record("a 32768 px wide image was recognized")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("32768x1"))
        }
    }

    @Test(arguments: [RecognitionMode.text, .document])
    func treeIsConsistent(mode: RecognitionMode) throws {
        let result = try engine().recognize(try gray("camera-720p"), request: RecognitionRequest(mode: mode))
        #expect(result.lines.count == 5)
        #expect(result.text == result.lines.map(\.text).joined(separator: "\n"))
        for block in result.blocks {
            #expect(block.text == block.lines.map(\.text).joined(separator: "\n"))
            #expect((0...1).contains(block.confidence))
            #expect(block.recognizedLanguages == ["en"])
            for line in block.lines {
                #expect(block.frame.contains(line.frame))
                #expect(line.text == line.elements.map(\.text).joined(separator: " "))
                #expect(!line.elements.isEmpty)
                let mean = line.elements.map(\.confidence).reduce(0, +) / Float(line.elements.count)
                #expect(abs(line.confidence - mean) < 1e-5)
                for word in line.elements {
                    #expect(line.frame.contains(word.frame), "\(word.text) \(word.frame) outside \(line.frame)")
                    #expect(!word.frame.isEmpty)
                    #expect(!word.text.contains(" ") && !word.text.isEmpty)
                    #expect(word.confidence > 0.5 && word.confidence <= 1)
                    #expect(word.recognizedLanguages == ["en"])
                    #expect(word.symbols.isEmpty)
                }
            }
            if mode == .text {
                #expect(block.paragraphs.isEmpty)
            } else {
                #expect(!block.paragraphs.isEmpty)
                // Paragraphs hold the same words as the lines, in the same order.
                #expect(block.paragraphs.flatMap(\.words) == block.lines.flatMap(\.elements))
                for paragraph in block.paragraphs {
                    #expect(paragraph.words.last?.recognizedBreak?.kind == .lineBreak)
                    #expect(paragraph.words.dropLast().allSatisfy { $0.recognizedBreak != nil })
                }
            }
        }
    }

    @Test func symbolsConcatenateToTheirWord() throws {
        let engine = try engine()
        let image = try gray("camera-720p")
        let plain = try engine.recognize(image, request: RecognitionRequest())
        let detailed = try engine.recognize(image, request: RecognitionRequest(includeSymbols: true))
        #expect(detailed.text == plain.text)
        let words = detailed.lines.flatMap(\.elements)
        #expect(words.count == 24)
        for word in words {
            #expect(!word.symbols.isEmpty)
            #expect(word.symbols.map(\.text).joined() == word.text)
            for symbol in word.symbols {
                #expect(!symbol.frame.isEmpty && word.frame.intersection(symbol.frame) == symbol.frame)
                #expect((0...1).contains(symbol.confidence))
            }
        }
    }

    @Test func sameEngineGivesTheSameResultTwice() throws {
        let engine = try engine()
        let first = try engine.recognize(try gray("label-640x480"), request: RecognitionRequest())
        let blank = try engine.recognize(try gray("blank-320x240"), request: RecognitionRequest())
        let again = try engine.recognize(try gray("label-640x480"), request: RecognitionRequest())
        #expect(blank.text == "")
        #expect(first == again)
    }

    /// A page the line detector found is read at ACCURATE from FAST's reading: a page FAST reads
    /// surely comes back exactly as FAST read it (Sauvola's threshold first had read 4 of the
    /// corpus's 7 tune pages worse than FAST).
    @Test func aSurePageReadsAtAccurateExactlyAsAtFast() throws {
        let engine = try engine()
        var fast = RecognitionRequest(level: .fast)
        fast.readsAsPage = true
        var accurate = fast
        accurate.level = .accurate
        let image = try gray("label-640x480")
        let fastText = try engine.recognize(image, request: fast)
        #expect(!fastText.text.isEmpty)
        #expect(try engine.recognize(image, request: accurate) == fastText)
    }

    /// The engine reads `bytesPerRow`: the same pixels with padded rows give the same words.
    @Test func paddedRowsReadTheSame() throws {
        let image = try gray("label-640x480")
        var padded = [UInt8](repeating: 0, count: image.height * 700)
        for y in 0..<image.height {
            padded[(y * 700)..<(y * 700 + image.width)] =
                image.pixels[(y * image.bytesPerRow)..<(y * image.bytesPerRow + image.width)]
        }
        let engine = try engine()
        let tight = try engine.recognize(image, request: RecognitionRequest())
        let strided = try engine.recognize(
            GrayImage(width: image.width, height: image.height, bytesPerRow: 700, pixels: padded),
            request: RecognitionRequest())
        #expect(strided.text == tight.text)
        #expect(strided.lines.map(\.frame) == tight.lines.map(\.frame))
    }

    @Test func scriptModelReportsAScriptTag() throws {
        let result = try engine("Latin").recognize(try gray("label-640x480"), request: RecognitionRequest())
        #expect(result.lines.flatMap(\.elements).allSatisfy { $0.recognizedLanguages == ["und-Latn"] })
        #expect(!result.lines.isEmpty)
    }

    @Test func missingModelNamesThePackage() {
        do {
            _ = try TesseractEngine(tessdata: TesseractModels.defaultTessdata, key: EngineKey(models: ["nope"]))
            Issue.record("init with model 'nope' succeeded")
        } catch {
            #expect(error.code == .failedPrecondition)
            #expect(error.message.contains("tesseract-ocr-nope"), "\(error)")
            #expect(!error.message.contains("/"), "no paths in errors clients see: \(error.message)")
        }
        do {
            _ = try TesseractEngine(tessdata: "/nonexistent/tessdata", key: EngineKey(models: ["eng", "Latin"]))
            Issue.record("init from a missing folder succeeded")
        } catch {
            #expect(error.code == .failedPrecondition)
            #expect(error.message.contains("tesseract-ocr-eng"), "\(error)")
        }
    }

    @Test func modelNamesMapToPackagesAndTags() {
        #expect(ModelCatalog.debianPackage(for: "eng") == "tesseract-ocr-eng")
        #expect(ModelCatalog.debianPackage(for: "chi_sim") == "tesseract-ocr-chi-sim")
        #expect(ModelCatalog.debianPackage(for: "Latin") == "tesseract-ocr-script-latn")
        #expect(ModelCatalog.debianPackage(for: "Japanese") == "tesseract-ocr-script-jpan")
        #expect(ModelCatalog.languageTag(for: "eng") == "en")
        #expect(ModelCatalog.languageTag(for: "chi_sim") == "zh-Hans")
        #expect(ModelCatalog.languageTag(for: "Latin") == "und-Latn")
        #expect(ModelCatalog.languageTag(for: "gla") == "gla")
        #expect(ModelCatalog.languageTag(for: "Fraktur") == "und")
    }
}
