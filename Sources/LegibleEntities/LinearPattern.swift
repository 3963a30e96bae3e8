internal import CRE2
public import LegibleCore

/// A client's regular expression, compiled by RE2, which matches in time linear in the text:
/// no pattern can stall the server by backtracking (`(a+)+$` against a line of `a`s ending
/// in `b` is one pass over the line, where a backtracking engine's time doubles with each `a`).
/// Patterns are RE2's syntax (Perl-like, without backreferences or lookaround).
///
/// Bounded twice: the pattern's length (`maxPatternBytes`) and the memory RE2 may give its
/// automata (`maxMemoryBytes`); a pattern past either, or one that does not compile, is
/// INVALID_ARGUMENT with RE2's reason. Matching a compiled pattern is thread-safe (RE2's
/// objects are immutable once made).
public final class LinearPattern: @unchecked Sendable {
    /// The longest pattern taken, in UTF-8 bytes.
    public static let maxPatternBytes = 512
    /// RE2's memory budget per pattern (its default is 8 MiB; a session may hold several).
    public static let maxMemoryBytes: Int64 = 1 << 20

    /// The pattern as given.
    public let source: String
    private let compiled: OpaquePointer

    public init(_ source: String) throws(LegibleError) {
        let bytes = Array(source.utf8)
        guard !bytes.isEmpty else { throw LegibleError(.invalidArgument, "the pattern is empty") }
        guard bytes.count <= Self.maxPatternBytes else {
            throw LegibleError(
                .invalidArgument, "the pattern has \(bytes.count) bytes; at most \(Self.maxPatternBytes) are taken")
        }
        var reason = [CChar](repeating: 0, count: 256)
        let made = bytes.withUnsafeBufferPointer { pattern in
            pattern.withMemoryRebound(to: CChar.self) { pattern in
                legible_re2_compile(pattern.baseAddress, pattern.count, Self.maxMemoryBytes, &reason, reason.count)
            }
        }
        guard let made else {
            let message = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw LegibleError(.invalidArgument, "the pattern \"\(source)\" does not compile: \(message)")
        }
        self.source = source
        compiled = made
    }

    deinit { legible_re2_free(compiled) }

    /// The non-overlapping matches in `text`, left to right, as UTF-8 byte offsets. An empty
    /// match is skipped (a pattern such as `a*` matches nothing worth capturing).
    public func matches(inUTF8 text: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        text.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { bytes in
                var start = 0
                var matchStart = 0
                var matchEnd = 0
                while start <= bytes.count,
                    legible_re2_find(compiled, bytes.baseAddress, bytes.count, start, &matchStart, &matchEnd) == 1
                {
                    if matchEnd > matchStart {
                        found.append(matchStart..<matchEnd)
                        start = matchEnd
                    } else {
                        start = matchEnd + 1
                    }
                }
            }
        }
        return found
    }

    /// The matched substrings of `text`, left to right.
    public func matches(in text: String) -> [Substring] {
        let utf8 = Array(text.utf8)
        return matches(inUTF8: utf8).compactMap { range in
            let view = text.utf8
            let lower = view.index(view.startIndex, offsetBy: range.lowerBound)
            let upper = view.index(view.startIndex, offsetBy: range.upperBound)
            // A match inside a multi-byte character cannot happen (RE2 matches whole UTF-8
            // characters), but the bounds are checked anyway.
            guard let low = lower.samePosition(in: text), let high = upper.samePosition(in: text) else { return nil }
            return text[low..<high]
        }
    }
}
