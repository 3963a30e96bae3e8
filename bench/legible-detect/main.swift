// legible-detect: what the text detector costs and finds, per input size.
//
// For each --max-side, one TextDetector (one inference thread unless --threads) detects every
// file warmup + repeat times in-process; it prints per size the median ms per frame of each step
// (compile/shape look-up, pre-processing, inference, post-processing), the first frame of each
// shape with its compilation, RSS after loading the model and after the first inference, and,
// against each file's truth (NAME.json beside it: scripts/make-detector-fixtures.py's
// "corners", or make-fixtures.py's line "box"), the lines' recall and precision at IoU >= 0.5
// of the quads, and the boxes found on text-free frames.
//
// A Tesseract engine is created and reads the first file first, so Tesseract (and its OpenMP
// runtime) lives in the same process as in legibled: run it with OMP_THREAD_LIMIT=1.
// --read-lines MODEL compares the line readers on the detected lines (ms per line, RSS).
// --colour also detects on the BGR pixels of each JPEG (PaddleOCR's input) to compare with gray.

internal import CTurboJPEG
internal import Foundation
internal import LegibleCommandLine
internal import LegibleCore
@_spi(Measurement) internal import LegibleDetection
internal import LegibleImaging
internal import LegibleTesseract

let command = Command(
    name: "legible-detect", abstract: "Time the text detector per input size and score its lines against truth.",
    options: [
        .value(
            "max-side", valueName: "list", help: "Comma-separated longest input sides to measure.",
            default: "640,736,864,960,1280"),
        .value("repeat", valueName: "n", help: "Timed detections per file.", default: "5"),
        .value("warmup", valueName: "k", help: "Untimed detections per file before them.", default: "1"),
        .value("threads", valueName: "n", help: "OpenVINO's INFERENCE_NUM_THREADS.", default: "1"),
        .value(
            "shapes", valueName: "policy", help: "static (one compiled model per input size) or dynamic.",
            default: "static"),
        .value("model", valueName: "path", help: "The ONNX detection model.", default: TextDetector.defaultModelPath),
        .value(
            "tessdata", valueName: "dir", help: "Tesseract's models (an eng engine shares the process).",
            default: TesseractModels.defaultTessdata),
        .flag("colour", help: "Also detect on each JPEG's BGR pixels and compare with gray."),
        .flag("per-file", help: "Print each file's recall, precision and ms."),
        .flag("print-lines", help: "Print each file's detected lines (JSON) to stderr."),
        .value(
            "read-lines", valueName: "model",
            help:
                "Also read each file's detected lines with a Tesseract engine of this model and with PP-OCRv4's recognition model; print ms per line of each.",
            default: "off"),
    ],
    arguments: [Argument("file", help: "Images (JPEG or PNG) with truth beside them.", variadic: true)])

let parsed = command.parseOrExit()
let files = parsed.positionals
if files.isEmpty { fail("give at least one image", code: .usage) }
let sides = (parsed.value("max-side") ?? "").split(separator: ",").compactMap { Int($0) }
let repeatCount = Int(parsed.value("repeat")!) ?? 5
let warmup = Int(parsed.value("warmup")!) ?? 1
let threads = Int(parsed.value("threads")!) ?? 1
let policy: TextDetector.ShapePolicy =
    parsed.value("shapes") == "dynamic" ? .dynamic : .perInputSize(maximumCached: 4)

func say(_ text: String) { StandardStream.output.write(text + "\n") }

func residentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Double(line.split(separator: " ").dropFirst().first ?? "").map { $0 / 1024 } ?? 0
    }
    return 0
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func fixed(_ value: Double, _ digits: Int = 1) -> String {
    let scale = pow(10, Double(digits))
    let scaled = Int64((value * scale).rounded())
    let whole = scaled / Int64(scale)
    let fraction = String(abs(scaled) % Int64(scale))
    return digits == 0 ? "\(whole)" : "\(whole).\(String(repeating: "0", count: digits - fraction.count))\(fraction)"
}

// MARK: Inputs

struct Sample {
    var path: String
    var gray: GrayImage
    var bgr: (pixels: [UInt8], width: Int, height: Int)?
    var truth: [DetectedLine]
    /// Indices of true lines in colour whose gray is nearly the background's ("low_gray_contrast").
    var lowGrayContrast: Set<Int>
}

func truthLines(for path: String) -> (lines: [DetectedLine], lowGrayContrast: Set<Int>) {
    let json = (path as NSString).deletingPathExtension + ".json"
    guard let data = FileManager.default.contents(atPath: json),
        let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let lines = document["lines"] as? [[String: Any]]
    else { return ([], []) }
    let low = Set(lines.indices.filter { lines[$0]["low_gray_contrast"] as? Bool == true })
    return (lines.compactMap(truthLine), low)
}

func truthLine(_ line: [String: Any]) -> DetectedLine? {
    if let corners = line["corners"] as? [[Double]] {
        return DetectedLine(
            corners: corners.map { Point(x: Int32($0[0].rounded()), y: Int32($0[1].rounded())) }, score: 1)
    }
    if let box = line["box"] as? [Int] {
        return DetectedLine(
            corners: Rect(x: Int32(box[0]), y: Int32(box[1]), width: Int32(box[2]), height: Int32(box[3]))
                .cornerPoints, score: 1)
    }
    return nil
}

func decodeBGR(_ data: [UInt8]) -> (pixels: [UInt8], width: Int, height: Int)? {
    guard let handle = tjInitDecompress() else { return nil }
    defer { tjDestroy(handle) }
    var width: Int32 = 0
    var height: Int32 = 0
    var subsampling: Int32 = 0
    var colourspace: Int32 = 0
    guard
        tjDecompressHeader3(handle, data, UInt(data.count), &width, &height, &subsampling, &colourspace) == 0
    else { return nil }
    var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 3)
    let status = pixels.withUnsafeMutableBufferPointer {
        tjDecompress2(handle, data, UInt(data.count), $0.baseAddress, width, 0, height, Int32(TJPF_BGR.rawValue), 0)
    }
    return status == 0 ? (pixels, Int(width), Int(height)) : nil
}

let imager: FrameImager
do { imager = try FrameImager() } catch { fail("\(error)", code: .failure) }
var samples: [Sample] = []
for path in files {
    guard let data = FileManager.default.contents(atPath: path).map([UInt8].init) else {
        fail("cannot read \(path)", code: .failure)
    }
    let encoding: ImageEncoding = path.lowercased().hasSuffix(".png") ? .png : .jpeg
    do {
        let gray = try imager.decode(EncodedImage(encoding: encoding, data: data), maxPixels: 40_000_000)
        let bgr = parsed.flag("colour") && encoding == .jpeg ? decodeBGR(data) : nil
        let truth = truthLines(for: path)
        samples.append(
            Sample(path: path, gray: gray, bgr: bgr, truth: truth.lines, lowGrayContrast: truth.lowGrayContrast))
    } catch {
        fail("\(path): \(error)", code: .failure)
    }
}

// Tesseract in the same process, initialised and used once, as in legibled.
let residentStart = residentMegabytes()
let tesseract: TesseractEngine
do {
    tesseract = try TesseractEngine(tessdata: parsed.value("tessdata")!, key: EngineKey(models: ["eng"]))
    _ = try tesseract.recognize(samples[0].gray, request: RecognitionRequest())
} catch {
    fail("tesseract: \(error)", code: .failure)
}
let environmentLimit = ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] ?? "unset"
say(
    "files \(samples.count), repeat \(repeatCount) (+\(warmup) warm-up), threads \(threads), shapes \(parsed.value("shapes")!), "
        + "OMP_THREAD_LIMIT=\(environmentLimit); RSS \(fixed(residentStart)) MB before Tesseract, "
        + "\(fixed(residentMegabytes())) MB after one eng recognition")

// MARK: Scoring

struct Score {
    var truth = 0
    var found = 0
    var matchedTruth = 0
    var matchedFound = 0
    var emptyFrameBoxes = 0
    var emptyFrames = 0
    /// Without the true lines of low gray contrast (and the lines found on them).
    var visibleTruth = 0
    var visibleMatched = 0
    var visibleRecall: Double { visibleTruth > 0 ? Double(visibleMatched) / Double(visibleTruth) : 1 }
    var recall: Double { truth > 0 ? Double(matchedTruth) / Double(truth) : 1 }
    var precision: Double { found > 0 ? Double(matchedFound) / Double(found) : 1 }

    /// One-to-one greedy matching, best overlap first, at IoU >= 0.5.
    mutating func add(found lines: [DetectedLine], truth expected: [DetectedLine], lowGrayContrast: Set<Int> = []) {
        if expected.isEmpty {
            emptyFrames += 1
            emptyFrameBoxes += lines.count
        }
        truth += expected.count
        found += lines.count
        var pairs: [(Double, Int, Int)] = []
        for (i, t) in expected.enumerated() {
            for (j, l) in lines.enumerated() {
                let overlap = t.overlapRatio(l)
                if overlap >= 0.5 { pairs.append((overlap, i, j)) }
            }
        }
        var usedTruth = Set<Int>()
        var usedFound = Set<Int>()
        for (_, i, j) in pairs.sorted(by: { $0.0 > $1.0 }) where !usedTruth.contains(i) && !usedFound.contains(j) {
            usedTruth.insert(i)
            usedFound.insert(j)
        }
        matchedTruth += usedTruth.count
        matchedFound += usedFound.count
        visibleTruth += expected.count - lowGrayContrast.count
        visibleMatched += usedTruth.subtracting(lowGrayContrast).count
    }
}

func describe(_ score: Score) -> String {
    "recall \(fixed(score.recall, 3)) (\(score.matchedTruth)/\(score.truth)), precision \(fixed(score.precision, 3)) "
        + "(\(score.matchedFound)/\(score.found)), boxes on \(score.emptyFrames) text-free frames: \(score.emptyFrameBoxes); "
        + "recall without low-gray-contrast lines \(fixed(score.visibleRecall, 3)) (\(score.visibleMatched)/\(score.visibleTruth))"
}

func json(_ lines: [DetectedLine]) -> String {
    "["
        + lines.map { line in
            "{\"score\":\(fixed(Double(line.score), 3)),\"corners\":["
                + line.corners.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]}"
        }.joined(separator: ",") + "]"
}

// MARK: Per size

for side in sides {
    let before = residentMegabytes()
    let detector: TextDetector
    do {
        detector = try TextDetector(
            modelPath: parsed.value("model")!,
            options: TextDetector.Options(maxSide: side, inferenceThreads: threads, shapes: policy))
    } catch {
        fail("\(error)", code: .failure)
    }
    let loaded = residentMegabytes()
    var firstFrames: [Double] = []
    var steps: [String: [Double]] = [:]
    var score = Score()
    var colourScore = Score()
    var grayOnColourFiles = Score()
    var afterFirst = 0.0
    var inputSizes = Set<String>()
    do {
        for sample in samples {
            var lines: [DetectedLine] = []
            var totals: [Double] = []
            for run in 0..<(warmup + repeatCount) {
                lines = try detector.detect(sample.gray)
                let timing = detector.lastTimings
                if afterFirst == 0 { afterFirst = residentMegabytes() }
                if run == 0 { firstFrames.append(timing.total) }
                if run >= warmup {
                    steps["compile", default: []].append(timing.compile)
                    steps["preprocess", default: []].append(timing.preprocess)
                    steps["inference", default: []].append(timing.inference)
                    steps["postprocess", default: []].append(timing.postprocess)
                    steps["total", default: []].append(timing.total)
                    totals.append(timing.total)
                }
            }
            let size = TextDetector.inputSize(width: sample.gray.width, height: sample.gray.height, maxSide: side)
            inputSizes.insert("\(size.width)x\(size.height)")
            score.add(found: lines, truth: sample.truth, lowGrayContrast: sample.lowGrayContrast)
            if parsed.flag("per-file") {
                var one = Score()
                one.add(found: lines, truth: sample.truth, lowGrayContrast: sample.lowGrayContrast)
                say("  \(side) \(sample.path): \(fixed(median(totals))) ms, \(describe(one))")
            }
            if parsed.flag("print-lines") {
                StandardStream.error.write("\(side) \(sample.path) \(json(lines))\n")
            }
            if let bgr = sample.bgr {
                let colourLines = try detector.detect(
                    bgr: bgr.pixels, width: bgr.width, height: bgr.height, bytesPerRow: bgr.width * 3)
                colourScore.add(found: colourLines, truth: sample.truth, lowGrayContrast: sample.lowGrayContrast)
                grayOnColourFiles.add(found: lines, truth: sample.truth, lowGrayContrast: sample.lowGrayContrast)
            }
        }
    } catch {
        fail("\(error)", code: .failure)
    }
    let stepText = ["compile", "preprocess", "inference", "postprocess", "total"].map {
        "\($0) \(fixed(median(steps[$0] ?? [])))"
    }.joined(separator: ", ")
    say(
        "max-side \(side) (inputs \(inputSizes.sorted().joined(separator: " "))): median ms/frame \(stepText); "
            + "first frame of each file median \(fixed(median(firstFrames))) max \(fixed(firstFrames.max() ?? 0)); "
            + "RSS +\(fixed(loaded - before)) MB after load, +\(fixed(afterFirst - before)) MB after the first inference "
            + "(\(detector.compiledShapeCount) compiled shapes now)")
    say("  gray: \(describe(score))")
    if colourScore.truth > 0 || colourScore.emptyFrames > 0 {
        say("  same JPEGs, gray: \(describe(grayOnColourFiles))")
        say("  same JPEGs, BGR : \(describe(colourScore))")
    }
}

// MARK: Line readers (--read-lines)

// Each file's lines as the first --max-side finds them, rectified as legibled does, read by a
// Tesseract engine of the given model at PSM 7 and by PP-OCRv4's recognition model: median ms
// per line of each (the same lines), and the recognition model's RSS.
if parsed.isSet("read-lines"), let model = parsed.value("read-lines") {
    do {
        let detector = try TextDetector(
            modelPath: parsed.value("model")!, options: TextDetector.Options(maxSide: sides.first ?? 960))
        let engine = try TesseractEngine(tessdata: parsed.value("tessdata")!, key: EngineKey(models: [model]))
        let before = residentMegabytes()
        let recognizer = try LineTextRecognizer()
        let loaded = residentMegabytes()
        var strips: [GrayImage] = []
        for sample in samples {
            strips += try detector.detect(sample.gray).compactMap {
                LineRectifier().rectify(sample.gray, quad: $0.quad)?.image
            }
        }
        guard !strips.isEmpty else { fail("no lines were found in the files", code: .failure) }
        _ = try recognizer.read(strips[0])
        let afterFirst = residentMegabytes()
        let clock = ContinuousClock()
        var tesseractMs: [Double] = []
        var modelMs: [Double] = []
        for strip in strips {
            for _ in 0..<max(1, repeatCount) {
                var start = clock.now
                _ = try engine.recognizeLine(strip, request: RecognitionRequest())
                tesseractMs.append(milliseconds(clock.now - start))
                start = clock.now
                _ = try recognizer.read(strip)
                modelMs.append(milliseconds(clock.now - start))
            }
        }
        say(
            "read-lines: \(strips.count) lines, median ms/line: tesseract \(model) \(fixed(median(tesseractMs))), "
                + "pp-ocrv4 rec \(fixed(median(modelMs))) (sum over the lines: \(fixed(tesseractMs.reduce(0, +) / Double(max(1, repeatCount)))) "
                + "against \(fixed(modelMs.reduce(0, +) / Double(max(1, repeatCount)))) ms); "
                + "pp-ocrv4 rec RSS +\(fixed(loaded - before)) MB loaded, +\(fixed(afterFirst - before)) MB after one line"
        )
    } catch {
        fail("\(error)", code: .failure)
    }
}
