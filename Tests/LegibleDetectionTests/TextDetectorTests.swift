import Foundation
import LegibleCore
import LegibleDetection
import LegibleImaging
import Testing

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

/// A rendered fixture (scripts/make-detector-fixtures.py): its gray pixels and true lines.
func fixture(_ name: String) throws -> (image: GrayImage, truth: [DetectedLine]) {
    let folder = fixtures.appendingPathComponent("detector")
    let data = [UInt8](try Data(contentsOf: folder.appendingPathComponent("\(name).png")))
    let image = try FrameImager().decode(EncodedImage(encoding: .png, data: data), maxPixels: 10_000_000)
    struct Truth: Decodable {
        struct Line: Decodable { var corners: [[Double]] }
        var lines: [Line]
    }
    let truth = try JSONDecoder().decode(
        Truth.self, from: Data(contentsOf: folder.appendingPathComponent("\(name).json")))
    let lines = truth.lines.map { line in
        DetectedLine(
            corners: line.corners.map { Point(x: Int32($0[0].rounded()), y: Int32($0[1].rounded())) }, score: 1)
    }
    return (image, lines)
}

/// Serialized: each detector infers on its own thread, and the machine has two cores.
@Suite(.serialized) struct TextDetectorTests {
    /// Each true line is matched by exactly one detected line with polygon IoU ≥ 0.5 (the
    /// rotated quads themselves: axis-aligned boxes of a 20° line would overlap its neighbours),
    /// and nothing else is detected.
    /// The default (float) model, and the int8 one `make deps` installs beside it for
    /// `--detector-model` (scripts/quantize-detector.py): each finds every fixture line once.
    @Test(
        arguments: ["level", "tilt+20", "tilt-20", "turned90", "light-on-dark", "cluttered"],
        [TextDetector.defaultModelPath, TextDetector.int8ModelPath])
    func findsEachLine(name: String, model: String) throws {
        let (image, truth) = try fixture(name)
        let lines = try TextDetector(modelPath: model).detect(image)
        for expected in truth {
            let matches = lines.filter { $0.overlapRatio(expected) >= 0.5 }
            #expect(matches.count == 1, "\(name): \(expected.corners) matched by \(matches.count) of \(lines)")
        }
        #expect(lines.count == truth.count, "\(name): \(lines.count) lines for \(truth.count) true ones")
        for line in lines {
            #expect(line.score >= 0.6 && line.score <= 1)
            let width = Int32(image.width)
            let height = Int32(image.height)
            let inside = line.corners.allSatisfy { (0...width).contains($0.x) && (0...height).contains($0.y) }
            #expect(inside)
        }
    }

    @Test func linesTurnedBy90DegreesAreTallAndTiltedLinesKeepTheirSlope() throws {
        for line in try TextDetector().detect(try fixture("turned90").image) {
            #expect(line.size.height > 3 * line.size.width)
        }
        // +20° rises to the right: corner 1 is higher (smaller y) than corner 0.
        for line in try TextDetector().detect(try fixture("tilt+20").image) {
            let slope = Double(line.corners[1].y - line.corners[0].y) / Double(line.corners[1].x - line.corners[0].x)
            #expect(abs(atan(-slope) * 180 / .pi - 20) < 3, "\(line.corners)")
        }
    }

    @Test func noBoxOnATextFreeTexture() throws {
        #expect(try TextDetector().detect(try fixture("texture").image).isEmpty)
    }

    @Test func infersOnOneThreadByDefault() throws {
        let detector = try TextDetector()
        #expect(try detector.compiledProperty("INFERENCE_NUM_THREADS") == nil)
        _ = try detector.detect(try fixture("level").image)
        #expect(try detector.compiledProperty("INFERENCE_NUM_THREADS") == "1")
        #expect(try detector.compiledProperty("NUM_STREAMS") == "1")
        // Pinned, every detector of the process would share the first core
        // (docs/library-facts.md, "OpenVINO: CPU pinning").
        #expect(try detector.compiledProperty("ENABLE_CPU_PINNING") == "NO")
        let two = try TextDetector(options: TextDetector.Options(inferenceThreads: 2))
        _ = try two.detect(try fixture("level").image)
        #expect(try two.compiledProperty("INFERENCE_NUM_THREADS") == "2")
    }

    /// Each input size gets its own compiled model, at most `maximumCached` of them; a size
    /// seen again after eviction is compiled again and still detects the same lines.
    @Test func compiledShapesAreCachedAndBounded() throws {
        let (image, _) = try fixture("level")
        let detector = try TextDetector(
            options: TextDetector.Options(maxSide: 640, shapes: .perInputSize(maximumCached: 2)))
        let first = try detector.detect(image)  // 640x352
        var cropped = image
        for side in [480, 320, 640] {  // x544 each
            cropped = GrayImage(width: side, height: image.height, bytesPerRow: image.bytesPerRow, pixels: image.pixels)
            _ = try detector.detect(cropped)
            #expect(detector.compiledShapeCount <= 2)
        }
        _ = try detector.detect(cropped)
        #expect(detector.lastTimings.compile < 50, "a cached shape needs no compilation")
        #expect(try detector.detect(image) == first)
        #expect(detector.lastTimings.compile > 0)
    }

    @Test func dynamicShapesFindTheSameLines() throws {
        let (image, truth) = try fixture("tilt-20")
        let lines = try TextDetector(options: TextDetector.Options(shapes: .dynamic)).detect(image)
        #expect(lines.count == truth.count)
    }

    @Test func emptyImagesAndMissingModels() throws {
        #expect(try TextDetector().detect(GrayImage(width: 0, height: 0, bytesPerRow: 0, pixels: [])).isEmpty)
        let blank = GrayImage(width: 7, height: 3, bytesPerRow: 7, pixels: [UInt8](repeating: 255, count: 21))
        #expect(try TextDetector().detect(blank).isEmpty)
        #expect(throws: LegibleError.self) { try TextDetector(modelPath: "/nonexistent/det.onnx") }
        do {
            _ = try TextDetector(modelPath: "/nonexistent/det.onnx")
        } catch {
            #expect(error.code == .failedPrecondition)
        }
        #expect(throws: LegibleError.self) { try TextDetector(options: TextDetector.Options(maxSide: 100)) }
    }
}

/// ACCURATE looks at a frame through a larger input than FAST, and finds the same lines.
@Suite(.serialized) struct DetectorLevelTests {
    @Test func accurateUsesTheLargerInput() throws {
        let (image, truth) = try fixture("level")
        let detector = try TextDetector(options: TextDetector.Options(maxSide: 640, accurateMaxSide: 1280))
        let fast = try detector.detect(image)
        let fastSize = detector.lastInputSize
        let accurate = try detector.detect(image, maxSide: detector.options.accurateMaxSide)
        #expect(max(fastSize.width, fastSize.height) == 640)
        #expect(max(detector.lastInputSize.width, detector.lastInputSize.height) > 640)
        #expect(fast.count == truth.count && accurate.count == truth.count, "\(fast.count) / \(accurate.count)")
    }
}
