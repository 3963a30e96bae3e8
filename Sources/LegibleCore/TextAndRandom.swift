/// A JSON string literal, escaped as RFC 8259 asks (quotes, backslashes, control characters),
/// for the hand-written JSON of logs and tools that must not depend on Foundation or the locale.
public enum JSONText {
    public static func quoted(_ text: String) -> String {
        var out = ""
        append(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal on one line: besides what JSON must escape,
    /// the characters other than `\n` that split lines for some readers (U+0085, U+2028,
    /// U+2029: Python's `str.splitlines`, JavaScript before ES2019) are written as `\u`
    /// escapes, so that JSON Lines (logs, `legible --format json`) stay one record per line.
    public static func append(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _
            where scalar.value < 0x20 || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same numbers on
/// every machine, which `SystemRandomNumberGenerator` cannot promise. For generated frames and
/// test sequences that must be the same on every run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
