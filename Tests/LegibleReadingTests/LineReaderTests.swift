import Foundation
import LegibleCore
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
