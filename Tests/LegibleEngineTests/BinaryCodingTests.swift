import Testing

@testable import LegibleEngine

/// The binary form of engine workers' messages gives back every shape of `Codable` value the
/// messages use — and ones they may come to use — and refuses bytes that are not a message.
@Suite("Binary coding")
struct BinaryCodingTests {
    enum Shape: Codable, Equatable {
        case none
        case circle(radius: Double)
        case polygon([Corner], label: String?)
    }

    struct Corner: Codable, Equatable {
        var x: Float
        var y: Float
    }

    enum Level: Int, Codable {
        case low = 1
        case high = 7
    }

    struct Everything: Codable, Equatable {
        var name = "Café 港区 ✓"
        var empty = ""
        var small: Int8 = -5
        var wide: UInt64 = .max
        var signed = Int.min
        var flag = true
        var ratio: Float = 0.25
        var precise = Double.pi
        var missing: Int? = nil
        var present: String? = "here"
        var nilsInList: [Int?] = [1, nil, 3, nil]
        var nested: [[String]] = [["a", "b"], [], ["c"]]
        var bytes: [UInt8] = [0, 1, 254, 255]
        var noBytes: [UInt8] = []
        var table: [String: Int] = ["one": 1, "two": 2]
        var numbered: [Int: String] = [3: "three", 4: "four"]
        var shapes: [Shape] = [.none, .circle(radius: 2.5), .polygon([Corner(x: 1, y: 2)], label: nil)]
        var level = Level.high
        var optionalShape: Shape? = .polygon([], label: "empty")
    }

    static func roundTrip<Value: Codable>(_ value: Value) throws -> Value {
        let bytes = try BinaryMessageEncoder().encode(value)
        return try BinaryMessageDecoder().decode(Value.self, from: bytes[...])
    }

    @Test func everyShapeComesBackAsItWent() throws {
        #expect(try Self.roundTrip(Everything()) == Everything())
        #expect(try Self.roundTrip(42) == 42)
        #expect(try Self.roundTrip("alone") == "alone")
        #expect(try Self.roundTrip(String?.none) == nil)
        #expect(try Self.roundTrip([Int]()) == [])
        #expect(try Self.roundTrip(Level.low) == .low)
    }

    @Test func floatsKeepTheirBitsNaNAndInfinitiesIncluded() throws {
        let values: [Float] = [.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        let decoded = try Self.roundTrip(values)
        #expect(decoded.map(\.bitPattern) == values.map(\.bitPattern))
    }

    @Test func numbersTakeTheirOwnWidthNotText() throws {
        // 10 corners of two Floats: each corner 2 × (4 + 1 + 4) + its slot's 4, the list's count 4,
        // the top slot 4 — a few bytes per number, where JSON spends up to 15 characters each.
        let corners = Array(repeating: Corner(x: 0.123456789, y: 123456.789), count: 10)
        #expect(try BinaryMessageEncoder().encode(corners).count == 4 + 4 + 10 * (4 + 2 * (1 + 1 + 4 + 4)))
    }

    @Test func aMessageCutShortOrLengthenedIsRefusedNotRead() throws {
        let bytes = try BinaryMessageEncoder().encode(Everything())
        for end in 0..<bytes.count {
            #expect(throws: DecodingError.self) {
                try BinaryMessageDecoder().decode(Everything.self, from: bytes[..<end])
            }
        }
        #expect(throws: DecodingError.self) {
            try BinaryMessageDecoder().decode(Everything.self, from: (bytes + [0])[...])
        }
    }

    @Test func aValueOfAnotherTypeIsATypeMismatch() throws {
        let bytes = try BinaryMessageEncoder().encode(Corner(x: 1, y: 2))
        struct WideCorner: Codable { var x: Double }
        #expect(throws: DecodingError.self) { try BinaryMessageDecoder().decode(WideCorner.self, from: bytes[...]) }
        struct Named: Codable { var name: String }
        #expect(throws: DecodingError.self) { try BinaryMessageDecoder().decode(Named.self, from: bytes[...]) }
        #expect(throws: DecodingError.self) { try BinaryMessageDecoder().decode(Int.self, from: bytes[...]) }
    }
}
