public import LegibleCore

/// Where a server listens or a client connects, written `unix:PATH` or `tcp:HOST:PORT`
/// (an IPv6 host in brackets: `tcp:[::1]:7480`).
public enum ServerAddress: Sendable, Hashable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: UInt16)

    /// The server's default listeners, and the addresses a client tries in order.
    public static let defaults: [ServerAddress] = [.unix(path: "legible.sock"), .tcp(host: "127.0.0.1", port: 7480)]

    public init(parsing text: String) throws(LegibleError) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { throw LegibleError(.invalidArgument, "'\(text)': unix: needs a path") }
            guard path.utf8.count < 108 else {
                throw LegibleError(.invalidArgument, "'\(text)': a unix socket path must be shorter than 108 bytes")
            }
            self = .unix(path: path)
        } else if text.hasPrefix("tcp:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":") else {
                throw LegibleError(.invalidArgument, "'\(text)': expected tcp:HOST:PORT")
            }
            var host = String(rest[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, let port = UInt16(rest[rest.index(after: colon)...]) else {
                throw LegibleError(.invalidArgument, "'\(text)': expected tcp:HOST:PORT with a port 0...65535")
            }
            self = .tcp(host: host, port: port)
        } else {
            throw LegibleError(.invalidArgument, "'\(text)': an address is unix:PATH or tcp:HOST:PORT")
        }
    }

    public var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        }
    }
}

extension ServerAddress {
    /// Whether `host` names this machine only: `localhost`, 127.0.0.0/8 or ::1.
    public static func isLoopback(host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
