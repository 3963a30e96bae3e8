import Foundation
import LegibleCore
import LegibleImaging
import LegibleTesseract

/// The truth of a fixture, as scripts/make-fixtures.py writes it.
struct Truth: Decodable {
    struct Word: Decodable {
        var text: String
        var box: [Int32]
        var rect: Rect { Rect(x: box[0], y: box[1], width: box[2], height: box[3]) }
    }
    struct Line: Decodable {
        var text: String
        var box: [Int32]
        var words: [Word]
    }
    var width: Int
    var height: Int
    var lines: [Line]

    var text: String { lines.map(\.text).joined(separator: "\n") }
}

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

func truth(_ name: String) throws -> Truth {
    try JSONDecoder().decode(Truth.self, from: Data(contentsOf: fixtures.appendingPathComponent("\(name).json")))
}

func gray(_ name: String) throws -> GrayImage {
    let data = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("\(name).jpg")))
    return try FrameImager().decode(EncodedImage(encoding: .jpeg, data: data), maxPixels: 10_000_000)
}

func engine(_ model: String = "eng") throws -> TesseractEngine {
    try TesseractEngine(
        tessdata: TesseractModels.defaultTessdata, key: EngineKey(models: model.split(separator: "+").map(String.init)))
}

/// Character error rate: Levenshtein distance over characters / the truth's length.
func characterErrorRate(_ recognized: String, truth: String) -> Double {
    let a = Array(recognized)
    let b = Array(truth)
    guard !a.isEmpty, !b.isEmpty else { return b.isEmpty ? (a.isEmpty ? 0 : 1) : 1 }
    // One row of the edit-distance table at a time.
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return Double(previous[b.count]) / Double(b.count)
}

extension Rect {
    /// Whether `other` lies wholly inside this rectangle.
    func contains(_ other: Rect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    func containsPoint(x px: Int32, y py: Int32) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }
}
