import Foundation
import LegibleCore
import LegibleDetection
import LegibleImaging
import LegibleReading
import LegibleTesseract
import Synchronization
import Testing

private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/lines")

private struct Truth: Decodable {
    struct Word: Decodable {
        var text: String
        var quad: [[Double]]
    }
    struct Line: Decodable {
        var text: String
        var quad: [[Double]]
        var words: [Word]
    }
    var width: Int
    var height: Int
    var lines: [Line]
}

private func load(_ name: String) throws -> (GrayImage, Truth) {
    let png = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("\(name).png")))
    let image = try FrameImager().decode(EncodedImage(encoding: .png, data: png), maxPixels: 10_000_000)
    let truth = try JSONDecoder().decode(
        Truth.self, from: Data(contentsOf: fixtures.appendingPathComponent("\(name).json")))
    return (image, truth)
}

/// A truth quad grown by `margin` px on every side, as a detector's box (DB's unclip) is.
private func detected(_ corners: [[Double]], margin: Double) -> DetectedLine {
    // Along the top edge and down the left edge.
    let ux = corners[1][0] - corners[0][0]
    let uy = corners[1][1] - corners[0][1]
    let ul = (ux * ux + uy * uy).squareRoot()
    let vx = corners[3][0] - corners[0][0]
    let vy = corners[3][1] - corners[0][1]
    let vl = (vx * vx + vy * vy).squareRoot()
    let points = corners.enumerated().map { index, corner -> Point in
        let alongSign: Double = (index == 1 || index == 2) ? 1 : -1
        let downSign: Double = index >= 2 ? 1 : -1
        let x = corner[0] + alongSign * margin * ux / ul + downSign * margin * vx / vl
        let y = corner[1] + alongSign * margin * uy / ul + downSign * margin * vy / vl
        return Point(x: Int32(x.rounded()), y: Int32(y.rounded()))
    }
    return DetectedLine(corners: points, score: 0.9)
}

private func cer(_ got: String, _ want: String) -> Double {
    let a = Array(got)
    let b = Array(want)
    var previous = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var current = [i] + [Int](repeating: 0, count: b.count)
        for j in 1...max(1, b.count) where !b.isEmpty {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return Double(a.isEmpty ? b.count : previous[b.count]) / Double(max(1, b.count))
}

/// Serialized: each recognition already uses both cores through OpenMP.
@Suite(.serialized) struct LineReaderTests {
    static let engine = Mutex(
        try! TesseractEngine(tessdata: TesseractModels.defaultTessdata, key: EngineKey(models: ["eng"])))

    @Test(arguments: ["label-level", "label-tilted-plus20", "label-tilted-minus20", "sign-dark-minus12"])
    func readsEachLineAlongItsTiltWithWordBoxesWhereTheyWereDrawn(name: String) throws {
        let (image, truth) = try load(name)
        let lines = truth.lines.map { detected($0.quad, margin: 6) }
        let text = try Self.engine.withLock { engine in
            try LineReader().read(
                image, lines: lines.reversed(), recognizer: engine, request: RecognitionRequest(includeSymbols: true))
        }
        let want = truth.lines.map(\.text).joined(separator: "\n")
        #expect(cer(text.text, want) < 0.03, "\(text.text.debugDescription) vs \(want.debugDescription)")
        // Rectification round trip: each word read lands where it was drawn, corners within 3 px.
        let words = text.lines.flatMap(\.elements)
        for word in truth.lines.flatMap(\.words) {
            guard let found = words.first(where: { $0.text == word.text }) else {
                Issue.record("'\(word.text)' not read in \(name)")
                continue
            }
            let corners = found.cornerPoints
            for (corner, expected) in zip(corners, word.quad) {
                let dx = Double(corner.x) - expected[0]
                let dy = Double(corner.y) - expected[1]
                #expect((dx * dx + dy * dy).squareRoot() <= 3, "\(name) '\(word.text)': \(corners) vs \(word.quad)")
            }
            #expect(found.symbols.count == word.text.count)
        }
    }

    @Test func unsureLinesAreNotAnswered() throws {
        let (image, truth) = try load("label-level")
        var lines = truth.lines.map { detected($0.quad, margin: 6) }
        lines[0].score = 0.3
        let text = try Self.engine.withLock { engine in
            try LineReader().read(image, lines: lines, recognizer: engine, request: RecognitionRequest())
        }
        #expect(!text.text.contains("Coffee") && text.text.contains("Portland"))
    }

    @Test func aStripOfBlankGroundReadsNothing() throws {
        let (image, _) = try load("label-level")
        let blank = DetectedLine(corners: Rect(x: 20, y: 500, width: 300, height: 40).cornerPoints, score: 0.9)
        let text = try Self.engine.withLock { engine in
            try LineReader().read(
                image, lines: [blank], recognizer: engine, request: RecognitionRequest(maxCandidates: 2))
        }
        #expect(text.text.isEmpty && text.blocks.isEmpty)
    }
}

@Suite struct PageHeuristicTests {
    private func lines(_ count: Int, height: Int32, angle: Int32 = 0) -> [DetectedLine] {
        (0..<count).map { index in
            let y = Int32(40 + index) * (height + 8)
            return DetectedLine(
                corners: [
                    Point(x: 50, y: y), Point(x: 650, y: y + angle), Point(x: 650, y: y + angle + height),
                    Point(x: 50, y: y + height),
                ], score: 0.9)
        }
    }

    @Test func manySmallLevelLinesAreAPage() {
        #expect(LineReader.looksLikePage(lines(30, height: 14), width: 1600, height: 1232))
    }

    @Test func aFewLinesOrLargeOrTiltedOnesAreAScene() {
        #expect(!LineReader.looksLikePage(lines(12, height: 14), width: 1600, height: 1232))
        #expect(!LineReader.looksLikePage(lines(30, height: 60), width: 1600, height: 1232))
        // A receipt photographed at a slant: its lines rise 40 px over 600.
        #expect(!LineReader.looksLikePage(lines(30, height: 14, angle: -40), width: 1600, height: 1232))
    }
}

/// PP-OCRv4's recognition model reading detected lines (the Chinese script's line reader).
@Suite(.serialized) struct PPOCRLineRecognizerTests {
    static let recognizer = Mutex(
        PPOCRLineRecognizer(
            base: try! TesseractEngine(tessdata: TesseractModels.defaultTessdata, key: EngineKey(models: ["eng"])),
            model: try! LineTextRecognizer()))

    /// The largest distance from a corner of `found` to the same corner of `truth`.
    private func cornerError(_ found: [Point], _ truth: [[Double]]) -> Double {
        zip(found, truth).map { corner, expected in
            let dx = Double(corner.x) - expected[0]
            let dy = Double(corner.y) - expected[1]
            return (dx * dx + dy * dy).squareRoot()
        }.max() ?? .infinity
    }

    @Test(arguments: ["chinese-sign-plus15", "label-level", "label-tilted-plus20", "sign-dark-minus12"])
    func readsLinesWithBoxesWhereTheInkIs(name: String) throws {
        let (image, truth) = try load(name)
        let lines = truth.lines.map { detected($0.quad, margin: 6) }
        let text = try Self.recognizer.withLock { recognizer in
            try LineReader().read(
                image, lines: lines, recognizer: recognizer, request: RecognitionRequest(includeSymbols: true))
        }
        let isChinese = name.hasPrefix("chinese")
        func comparable(_ text: String) -> String { isChinese ? text.filter { !$0.isWhitespace } : text }
        let want = truth.lines.map { comparable($0.text) }.joined(separator: "\n")
        let got = text.lines.map { comparable($0.text) }.joined(separator: "\n")
        #expect(cer(got, want) < 0.05, "\(got.debugDescription) vs \(want.debugDescription)")
        for (line, expected) in zip(text.lines, truth.lines) {
            // CTC places characters only to a step (8 px of the model's 48 px high input); the
            // boxes are then trimmed to the ink, so the line's corners land on the drawn ones.
            #expect(
                cornerError(line.cornerPoints, expected.quad) <= 4, "\(name): \(line.cornerPoints) vs \(expected.quad)")
            #expect(line.elements.flatMap(\.symbols).count == line.text.filter { !$0.isWhitespace }.count)
            #expect(line.recognizedLanguages == (isChinese ? ["und-Hans"] : ["und-Latn"]))
        }
    }

    @Test func aStripOfBlankGroundReadsNothing() throws {
        let (image, _) = try load("label-level")
        let blank = DetectedLine(corners: Rect(x: 20, y: 500, width: 300, height: 40).cornerPoints, score: 0.9)
        let text = try Self.recognizer.withLock { recognizer in
            try LineReader().read(image, lines: [blank], recognizer: recognizer, request: RecognitionRequest())
        }
        #expect(text.text.isEmpty)
    }

    @Test func aMissingCharacterListIsAClearError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("legible-rec-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = folder.appendingPathComponent("rec.onnx").path
        try FileManager.default.copyItem(atPath: LineTextRecognizer.defaultModelPath, toPath: model)
        #expect {
            _ = try LineTextRecognizer(modelPath: model)
        } throws: { error in
            (error as? LegibleError)?.code == .failedPrecondition
                && (error as? LegibleError)?.message.contains("rec.characters.txt") == true
        }
    }
}

/// Vertical Chinese: tall detected lines read as columns, top to bottom, right to left.
@Suite(.serialized) struct VerticalColumnTests {
    private struct Columns: Decodable {
        struct Column: Decodable {
            var text: String
            var box: [Int32]
        }
        var columns: [Column]
    }

    @Test func columnsAreReadTopToBottomAndRightToLeftWithTheirBoxes() throws {
        let png = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("chinese-columns.png")))
        let image = try FrameImager().decode(EncodedImage(encoding: .png, data: png), maxPixels: 10_000_000)
        let truth = try JSONDecoder().decode(
            Columns.self, from: Data(contentsOf: fixtures.appendingPathComponent("chinese-columns.json")))
        // The detector's boxes for them: each column's ink box grown by 6 px, corners as a
        // detector gives a tall box (0→1 its short top edge).
        let lines = truth.columns.reversed().map { column in
            DetectedLine(
                corners: Rect(
                    left: column.box[0] - 6, top: column.box[1] - 6, right: column.box[2] + 6,
                    bottom: column.box[3] + 6
                ).cornerPoints, score: 0.9)
        }
        let text = try PPOCRLineRecognizerTests.recognizer.withLock { recognizer in
            try LineReader().read(image, lines: lines, recognizer: recognizer, request: RecognitionRequest())
        }
        #expect(text.lines.map(\.text) == truth.columns.map(\.text), "\(text.text.debugDescription)")
        for (line, column) in zip(text.lines, truth.columns) {
            let want = Rect(left: column.box[0], top: column.box[1], right: column.box[2], bottom: column.box[3])
            let got = line.frame
            #expect(
                abs(got.x - want.x) <= 4 && abs(got.y - want.y) <= 4 && abs(got.maxX - want.maxX) <= 4
                    && abs(got.maxY - want.maxY) <= 4, "\(line.text): \(got) vs \(want)")
            // The line's corners run down the column: its top edge is the column's right edge.
            #expect(line.quad.map { abs($0.angleDegrees - 90) < 5 } == true)
        }
    }

    @Test func tesseractsLinesAreNotTurned() {
        let engine = LineReaderTests.engine.withLock { $0.readsTallLinesAsColumns }
        #expect(!engine)
    }
}

/// PP-OCRv6's recognition model, ACCURATE's second reader of Latin, Chinese and Japanese lines.
@Suite(.serialized) struct SecondReaderModelTests {
    private static func reader(keeping script: Script?) throws -> PPOCRLineRecognizer {
        PPOCRLineRecognizer(
            base: try TesseractEngine(tessdata: TesseractModels.defaultTessdata, key: EngineKey(models: ["eng"])),
            model: try LineTextRecognizer(
                modelPath: LineTextRecognizer.secondModelPath,
                keeping: script.map { PPOCRLineRecognizer.characters(of: $0) }))
    }

    private func read(_ name: String, with reader: PPOCRLineRecognizer) throws -> (got: String, want: String) {
        let (image, truth) = try load(name)
        let lines = truth.lines.map { detected($0.quad, margin: 6) }
        let text = try LineReader().read(image, lines: lines, recognizer: reader, request: RecognitionRequest())
        func comparable(_ text: String) -> String { text.filter { !$0.isWhitespace } }
        return (
            text.lines.map { comparable($0.text) }.joined(separator: "\n"),
            truth.lines.map { comparable($0.text) }.joined(separator: "\n")
        )
    }

    @Test(arguments: ["chinese-sign-plus15", "label-level", "sign-dark-minus12"])
    func readsChineseAndLatinLines(name: String) throws {
        let (got, want) = try read(name, with: try Self.reader(keeping: nil))
        #expect(cer(got, want) < 0.05, "\(got.debugDescription) vs \(want.debugDescription)")
    }

    /// A Latin engine's second reader never answers in Han, even given a line of Han.
    @Test func keptToLatinItWritesNoHan() throws {
        let (got, _) = try read("chinese-sign-plus15", with: try Self.reader(keeping: .latin))
        let han = got.unicodeScalars.filter { (0x3400...0x9FFF).contains($0.value) }
        #expect(han.isEmpty, "\(got.debugDescription)")
        let (latin, want) = try read("label-level", with: try Self.reader(keeping: .latin))
        #expect(cer(latin, want) < 0.05, "\(latin.debugDescription) vs \(want.debugDescription)")
    }
}

/// What `LineReader.assemble` keeps of lines already read (no recognizer needed).
struct LineAssemblyTests {
    private func line(_ words: [String], confidence: Float = 0.9) -> TextLine {
        var x: Int32 = 10
        let elements = words.map { word -> TextElement in
            defer { x += Int32(word.count) * 12 + 10 }
            return TextElement(
                text: word, frame: Rect(x: x, y: 10, width: Int32(word.count) * 12, height: 20), confidence: confidence,
                recognizedLanguages: ["en"])
        }
        return TextLine(
            text: words.joined(separator: " "), frame: Rect(x: 10, y: 10, width: x, height: 20),
            confidence: confidence, recognizedLanguages: ["en"], elements: elements)
    }

    @Test func marksAloneAtALinesEndsAreNotText() {
        let reader = LineReader()
        for (words, want) in [
            (["OCR", "GCSE", "|"], "OCR GCSE"), (["|", "डाक"], "डाक"), (["विधानमंडल", "'"], "विधानमंडल"),
            (["'", "Quoted", "words", "’"], "Quoted words"), (["A|B", "2.99"], "A|B 2.99"),
        ] {
            let text = reader.assemble([(line(words), .identity)], width: 640, height: 480)
            #expect(text.text == want)
            #expect(text.lines.first?.elements.count == want.split(separator: " ").count)
        }
        // The line's confidence is its kept words' mean.
        var marked = line(["OCR", "GCSE", "|"])
        marked.elements[2].confidence = 0.3
        marked.confidence = 0.7
        #expect(reader.assemble([(marked, .identity)], width: 640, height: 480).lines.first?.confidence == 0.9)
        // A line of marks alone stays as it was, and is no text.
        #expect(reader.assemble([(line(["|"]), .identity)], width: 640, height: 480).text.isEmpty)
    }

    /// A line found inside another line that already reads its letters is an echo of it (a
    /// sign's big first letter found alone and within its word); it is left out. A line
    /// merely near another, or reading letters the other does not, stays.
    @Test func aLineInsideAnotherThatReadsItsLettersIsAnEcho() {
        let reader = LineReader()
        func placed(_ text: String, _ rect: Rect, confidence: Float = 0.9) -> TextLine {
            var read = line([text], confidence: confidence)
            read.elements[0].frame = rect
            read.frame = rect
            return read
        }
        let word = placed("Super Market", Rect(x: 80, y: 220, width: 900, height: 200))
        let letter = placed("S", Rect(x: 25, y: 200, width: 180, height: 220))  // 0.63 of it inside
        #expect(
            reader.assemble([(letter, .identity), (word, .identity)], width: 1074, height: 630).text == "Super Market")
        // Above the word, not inside it: two lines.
        let above = placed("S", Rect(x: 80, y: 0, width: 180, height: 200))
        #expect(reader.assemble([(above, .identity), (word, .identity)], width: 1074, height: 630).lines.count == 2)
        // Inside it but reading what it does not: kept.
        let other = placed("Z", Rect(x: 100, y: 240, width: 100, height: 100))
        #expect(reader.assemble([(other, .identity), (word, .identity)], width: 1074, height: 630).lines.count == 2)
        // The same text twice in one place: the surer reading stays, in either order.
        let twin = placed("Super Market", Rect(x: 90, y: 225, width: 880, height: 190), confidence: 0.7)
        for pair in [[twin, word], [word, twin]] {
            let text = reader.assemble(pair.map { ($0, .identity) }, width: 1074, height: 630)
            #expect(text.lines.map(\.confidence) == [0.9])
        }
    }

    /// A weak lone letter alone in the frame is clutter (a clock face read as "O"); beside
    /// other text, or read surely, or a digit or a Han character, it is answered.
    @Test func aWeakLoneLetterAloneInAFrameIsNotText() {
        let reader = LineReader()
        func answer(_ lines: [TextLine]) -> String {
            reader.assemble(lines.map { ($0, .identity) }, width: 640, height: 480).text
        }
        #expect(answer([line(["O"], confidence: 0.51)]) == "")
        #expect(answer([line(["O"], confidence: 0.51), line(["s"], confidence: 0.55)]) == "")
        #expect(answer([line(["O"], confidence: 0.65)]) == "O")
        #expect(answer([line(["7"], confidence: 0.51)]) == "7")
        #expect(answer([line(["中"], confidence: 0.51)]) == "中")
        var number = line(["622210512"])
        number.frame.y = 100
        number.elements[0].frame.y = 100
        #expect(answer([line(["s"], confidence: 0.51), number]).split(separator: "\n").count == 2)
    }
}
