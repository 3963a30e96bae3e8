/// The tokens a server accepts in `StartSession.auth_token` (`--auth-token-file`), compared in
/// constant time so that how long a refusal takes says nothing about how close a guess was.
public struct AccessTokens: Sendable, Hashable {
    private let tokens: [[UInt8]]

    /// No tokens: every session is accepted.
    public static let none = AccessTokens(tokens: [])

    public init(tokens: [String]) {
        self.tokens = tokens.filter { !$0.isEmpty }.map { Array($0.utf8) }
    }

    /// Reads one token per line; blank lines and lines starting with `#` are skipped.
    public init(fileContents: String) {
        self.init(
            tokens: fileContents.split(whereSeparator: \.isNewline).map {
                String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            }.filter { !$0.hasPrefix("#") })
    }

    public var isRequired: Bool { !tokens.isEmpty }
    public var count: Int { tokens.count }

    /// True when `candidate` is one of the tokens. Every token is compared over every byte of
    /// the longer of the two, whatever matched before.
    public func accepts(_ candidate: String) -> Bool {
        let given = Array(candidate.utf8)
        var found: UInt8 = 0
        for token in tokens {
            var difference = UInt8(truncatingIfNeeded: token.count ^ given.count)
            for index in 0..<max(token.count, given.count) {
                let a = index < token.count ? token[index] : 0
                let b = index < given.count ? given[index] : 0
                difference |= a ^ b
            }
            found |= difference == 0 ? 1 : 0
        }
        return found == 1
    }
}
