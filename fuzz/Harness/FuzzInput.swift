/// Reads the fixed-size header a fuzz target takes its parameters from, then hands out the rest
/// of the input as data.
///
/// Every read succeeds: past the end it yields zeros, so any input, even an empty one, is a
/// valid test case and libFuzzer's mutations never fall off a length check.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init(_ buffer: UnsafeBufferPointer<UInt8>) {
        self.bytes = Array(buffer)
    }

    public mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    /// `count` bytes, little-endian.
    public mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) -> T {
        var value: T = 0
        for index in 0..<(T.bitWidth / 8) { value |= T(truncatingIfNeeded: byte()) << (8 * index) }
        return value
    }

    /// Whatever is left after the header.
    public var rest: [UInt8] { offset < bytes.count ? Array(bytes[offset...]) : [] }
}

/// An invariant the product must keep for every input: violating it is a finding, in release
/// builds too (unlike `assert`).
@inline(never)
func invariant(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("fuzz invariant: \(message())", file: file, line: line) }
}

/// SplitMix64: a tiny deterministic generator, seeded from the input so that a crash replays.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
