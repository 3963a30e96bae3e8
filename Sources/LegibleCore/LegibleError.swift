internal import Glibc

/// The one error shape of Legible: a status code, a message for people, and an optional cause.
///
/// Codes are gRPC status code numbers, because that is what goes on the wire in `Error.code`
/// and what client authors already know. `Code` is an extensible struct, not an enum, so a
/// later issue can add codes without breaking exhaustive switches in other modules.
public struct LegibleError: Error, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let cancelled = Code(rawValue: 1)
        public static let unknown = Code(rawValue: 2)
        public static let invalidArgument = Code(rawValue: 3)
        public static let deadlineExceeded = Code(rawValue: 4)
        public static let notFound = Code(rawValue: 5)
        public static let resourceExhausted = Code(rawValue: 8)
        public static let failedPrecondition = Code(rawValue: 9)
        public static let unimplemented = Code(rawValue: 12)
        public static let `internal` = Code(rawValue: 13)
        public static let unavailable = Code(rawValue: 14)
        public static let unauthenticated = Code(rawValue: 16)

        public var name: String {
            switch self {
            case .cancelled: "CANCELLED"
            case .unknown: "UNKNOWN"
            case .invalidArgument: "INVALID_ARGUMENT"
            case .deadlineExceeded: "DEADLINE_EXCEEDED"
            case .notFound: "NOT_FOUND"
            case .resourceExhausted: "RESOURCE_EXHAUSTED"
            case .failedPrecondition: "FAILED_PRECONDITION"
            case .unimplemented: "UNIMPLEMENTED"
            case .internal: "INTERNAL"
            case .unavailable: "UNAVAILABLE"
            case .unauthenticated: "UNAUTHENTICATED"
            default: "CODE_\(rawValue)"
            }
        }
        public var description: String { name }
    }

    public var code: Code
    public var message: String
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        if let cause { return "\(code.name): \(message) (cause: \(cause))" }
        return "\(code.name): \(message)"
    }
}

/// A POSIX `errno` as a cause.
public struct SystemError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var errno: Int32
    public var reason: String
    public init(_ operation: String, errno: Int32, reason: String) {
        self.operation = operation
        self.errno = errno
        self.reason = reason
    }
    public var description: String { "\(operation): \(reason) (errno \(errno))" }
}

extension LegibleError {
    /// The current `errno` as a Legible error.
    public static func system(_ operation: String, code: Code = .internal) -> LegibleError {
        let number = errno
        let reason = String(cString: strerror(number))
        return LegibleError(
            code, "\(operation): \(reason)", cause: SystemError(operation, errno: number, reason: reason))
    }
}

/// A cause that crossed a process boundary (from an engine worker): only its description
/// survives.
public struct DescribedCause: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Coded as its code, message and the cause's description (engine worker messages).
extension LegibleError: Codable {
    private enum CodingKeys: String, CodingKey { case code, message, cause }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            Code(rawValue: try container.decode(Int32.self, forKey: .code)),
            try container.decode(String.self, forKey: .message),
            cause: try container.decodeIfPresent(String.self, forKey: .cause).map(DescribedCause.init))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code.rawValue, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(cause.map { "\($0)" }, forKey: .cause)
    }
}
