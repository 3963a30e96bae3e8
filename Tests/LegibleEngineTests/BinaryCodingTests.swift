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

    /// Every standard type synthesized `Codable` asks the containers for by name (each has its
    /// own fast path): as a field, as an optional field present and absent, and in a list.
    struct EveryWidth: Codable, Equatable {
        var bool = true
        var string = "ü"
        var double = -1.5
        var float: Float = 3.25
        var int = -7
        var int8: Int8 = .min
        var int16: Int16 = .min
        var int32: Int32 = .min
        var int64: Int64 = .min
        var uint: UInt = .max
        var uint8: UInt8 = .max
        var uint16: UInt16 = .max
        var uint32: UInt32 = .max
        var uint64: UInt64 = .max
        var someBool: Bool? = false
        var someString: String? = ""
        var someDouble: Double? = 0
        var someFloat: Float? = -0.0
        var someInt: Int? = 1
        var someInt8: Int8? = 2
        var someInt16: Int16? = 3
        var someInt32: Int32? = 4
        var someInt64: Int64? = 5
        var someUInt: UInt? = 6
        var someUInt8: UInt8? = 7
        var someUInt16: UInt16? = 8
        var someUInt32: UInt32? = 9
        var someUInt64: UInt64? = 10
        var noBool: Bool? = nil
        var noString: String? = nil
        var noFloat: Float? = nil
        var noInt32: Int32? = nil
        var noUInt64: UInt64? = nil
        var bools = [true, false]
        var strings = ["a", "", "港"]
        var doubles = [1.0, -2.0]
        var floats: [Float] = [1, -2]
        var ints = [Int.min, 0, .max]
        var int8s: [Int8] = [.min, .max]
        var int16s: [Int16] = [.min, .max]
        var int32s: [Int32] = [.min, .max]
        var int64s: [Int64] = [.min, .max]
        var uints: [UInt] = [0, .max]
        var uint16s: [UInt16] = [0, .max]
        var uint32s: [UInt32] = [0, .max]
        var uint64s: [UInt64] = [0, .max]
    }

    /// Written in one order, asked for in another: a keyed container finds a key wherever it is.
    struct AskedOutOfOrder: Codable, Equatable {
        var first: Int32
        var second: String
        var third: Float?

        enum CodingKeys: String, CodingKey { case first, second, third }

        init(first: Int32, second: String, third: Float?) {
            (self.first, self.second, self.third) = (first, second, third)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            third = try container.decodeIfPresent(Float.self, forKey: .third)
            second = try container.decode(String.self, forKey: .second)
            first = try container.decode(Int32.self, forKey: .first)
            #expect(container.contains(.first) && container.contains(.third) == (third != nil))
        }
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

    @Test func everyStandardTypeComesBackByItsOwnPath() throws {
        #expect(try Self.roundTrip(EveryWidth()) == EveryWidth())
        let value = AskedOutOfOrder(first: -3, second: "two", third: 1.5)
        #expect(try Self.roundTrip(value) == value)
        let withoutThird = AskedOutOfOrder(first: 9, second: "", third: nil)
        #expect(try Self.roundTrip(withoutThird) == withoutThird)
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

    @Test func anErrorSaysWhereInTheValueItIs() throws {
        struct Shape: Codable { var corners: [Corner] }
        struct WideCorner: Codable { var x: Double }
        struct WideShape: Codable { var corners: [WideCorner] }
        let bytes = try BinaryMessageEncoder().encode(Shape(corners: [Corner(x: 1, y: 2)]))
        do {
            _ = try BinaryMessageDecoder().decode(WideShape.self, from: bytes[...])
            Issue.record("a Float's 4 bytes were read as a Double")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["corners", "Index 0", "x"])
        }
    }
}
