internal import Glibc

/// One line per event on standard error: `legibled: LEVEL message key=value…`.
public struct Log: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    public var minimum: Level

    public init(minimum: Level = .info) { self.minimum = minimum }

    public func callAsFunction(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard level >= minimum else { return }
        var line = "legibled: \(level.name) \(message)"
        for (key, value) in fields {
            line += value.contains(" ") || value.isEmpty ? " \(key)=\"\(value)\"" : " \(key)=\(value)"
        }
        line += "\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
