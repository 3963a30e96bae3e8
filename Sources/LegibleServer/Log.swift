internal import Glibc
internal import LegibleCore

/// One line per event on standard error, as text (`legibled: LEVEL message key=value…`) or as
/// JSON (`{"time":…,"level":…,"msg":…,key:value…}`), for people and for log shippers.
public struct Log: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var minimum: Level
    public var format: Format

    public init(minimum: Level = .info, format: Format = .text) {
        self.minimum = minimum
        self.format = format
    }

    public func callAsFunction(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard level >= minimum else { return }
        var line: String
        switch format {
        case .text:
            line = "legibled: \(level.name) \(message)"
            for (key, value) in fields {
                line += value.contains(" ") || value.isEmpty ? " \(key)=\"\(value)\"" : " \(key)=\(value)"
            }
        case .json:
            line =
                "{\"time\":\(JSONText.quoted(Self.timestamp())),\"level\":\"\(level.name)\",\"msg\":\(JSONText.quoted(message))"
            for (key, value) in fields { line += ",\(JSONText.quoted(key)):\(JSONText.quoted(value))" }
            line += "}"
        }
        line += "\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// RFC 3339 in UTC with milliseconds, independent of the locale.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = now.tv_nsec / 1_000_000
        let fraction =
            milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
