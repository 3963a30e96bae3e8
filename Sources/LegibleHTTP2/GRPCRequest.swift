public import LegibleCore

/// A gRPC call's request headers read as gRPC over HTTP/2 defines them (grpc/grpc,
/// doc/PROTOCOL-HTTP2.md), before any message: which method, its deadline, its token — or why
/// it is refused, and how (an HTTP status, or a trailers-only gRPC status).
public struct GRPCRequest: Sendable, Hashable {
    /// Legible's methods (`service Recognizer` in Protos/legible/v1/legible.proto).
    public enum Method: String, Sendable, Hashable, CaseIterable {
        /// `rpc Stream(stream ClientMessage) returns (stream ServerMessage)`: today's session.
        case stream = "/legible.v1.Recognizer/Stream"
        /// `rpc Recognize(RecognizeRequest) returns (FrameResult)`: one frame, one answer.
        case recognize = "/legible.v1.Recognizer/Recognize"
        /// gRPC's health service: the serving status now (`grpc.health.v1.Health`).
        case healthCheck = "/grpc.health.v1.Health/Check"
        /// The serving status now and at every change, until the call ends.
        case healthWatch = "/grpc.health.v1.Health/Watch"
        /// Server reflection: what lets grpcurl list and describe the services.
        case reflection = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
        /// The same under its older name, which most tools still ask first.
        case reflectionV1Alpha = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"

        /// Legible's own methods run as sessions; the others are answered by the transport.
        public var isSession: Bool { self == .stream || self == .recognize }
    }

    public var method: Method
    /// `grpc-timeout`, when the client set one.
    public var timeout: Duration?
    /// The token of `authorization: Bearer TOKEN`, when sent.
    public var bearerToken: String?

    /// How a call is refused before any message.
    public enum Refusal: Error, Sendable, Hashable {
        /// Not a gRPC request at all (a content type other than `application/grpc…`, a method
        /// other than POST): answered with this HTTP status and no gRPC status.
        case http(status: Int, reason: String)
        /// A gRPC request this server will not serve: a trailers-only response with this status.
        case grpc(LegibleError.Code, String)
    }

    /// Reads `headers` (as `HTTP2Event.request` delivers them).
    public init(headers: [HTTP2Header]) throws(Refusal) {
        func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        guard value(":method") == "POST" else {
            throw .http(status: 405, reason: "gRPC calls are POST, not \(value(":method") ?? "no method")")
        }
        let contentType = value("content-type") ?? ""
        guard contentType.hasPrefix("application/grpc") else {
            throw .http(
                status: 415, reason: "content-type \(contentType.isEmpty ? "missing" : contentType) is not gRPC")
        }
        // The media type without its parameters ("; charset=…").
        let mediaType = contentType.prefix { $0 != ";" }.trimmingSuffix(" ")
        guard mediaType == "application/grpc" || mediaType == "application/grpc+proto" else {
            throw .grpc(.unimplemented, "only protobuf messages are served (content-type \(contentType))")
        }
        guard let path = value(":path"), let method = Method(rawValue: path) else {
            throw .grpc(.unimplemented, "unknown method \(value(":path") ?? "(no :path)")")
        }
        if let encoding = value("grpc-encoding"), encoding != "identity" {
            throw .grpc(.unimplemented, "message encoding \(encoding) is not supported; send identity")
        }
        self.method = method
        if let timeout = value("grpc-timeout") {
            guard let parsed = Self.timeout(timeout) else {
                throw .grpc(.invalidArgument, "grpc-timeout \(timeout) is not 1 to 8 digits and a unit (H M S m u n)")
            }
            self.timeout = parsed
        }
        if let authorization = value("authorization") {
            let scheme = "Bearer "
            guard authorization.hasPrefix(scheme) else {
                throw .grpc(.unauthenticated, "authorization must be \"Bearer TOKEN\"")
            }
            bearerToken = String(authorization.dropFirst(scheme.count))
        }
    }

    /// `grpc-timeout`'s value: 1 to 8 ASCII digits and a unit (hours, minutes, seconds,
    /// milliseconds, microseconds, nanoseconds).
    public static func timeout(_ text: String) -> Duration? {
        let digits = text.utf8.dropLast()
        guard let unit = text.last, (1...8).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }),
            let amount = Int64(String(decoding: digits, as: UTF8.self))
        else { return nil }
        switch unit {
        case "H": return .seconds(amount * 3600)
        case "M": return .seconds(amount * 60)
        case "S": return .seconds(amount)
        case "m": return .milliseconds(amount)
        case "u": return .microseconds(amount)
        case "n": return .nanoseconds(amount)
        default: return nil
        }
    }
}

/// The headers that end a gRPC call.
public enum GRPCStatus {
    /// The trailers of a call that succeeded.
    public static let ok = [HTTP2Header("grpc-status", "0")]

    /// `grpc-status` and, when there is one, the percent-encoded `grpc-message`.
    public static func trailers(_ code: LegibleError.Code, message: String = "") -> [HTTP2Header] {
        var headers = [HTTP2Header("grpc-status", String(code.rawValue))]
        if !message.isEmpty { headers.append(HTTP2Header("grpc-message", percentEncoded(message))) }
        return headers
    }

    /// A response of headers only for a call refused before any message: `:status` 200 and the
    /// gRPC status, or the HTTP status of a request that is not gRPC.
    public static func refusalHeaders(_ refusal: GRPCRequest.Refusal) -> [HTTP2Header] {
        switch refusal {
        case .http(let status, _):
            [HTTP2Header(":status", String(status))]
        case .grpc(let code, let message):
            [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")]
                + trailers(code, message: message)
        }
    }

    /// `grpc-message`'s encoding: UTF-8, every byte outside printable ASCII (0x20–0x7E) and
    /// "%" itself as %XX.
    public static func percentEncoded(_ message: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var out = ""
        for byte in message.utf8 {
            if (0x20...0x7E).contains(byte) && byte != UInt8(ascii: "%") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }
}

extension Substring {
    fileprivate func trimmingSuffix(_ character: Character) -> Substring {
        var trimmed = self
        while trimmed.last == character { trimmed = trimmed.dropLast() }
        return trimmed
    }
}
