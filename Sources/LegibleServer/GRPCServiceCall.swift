internal import LegibleCore
internal import LegibleHTTP2
internal import LegibleWire
internal import LegibleWireProtobuf

/// A call of gRPC's health service or of server reflection on an HTTP/2 connection: no
/// session and no engine, answered on the loop thread as its messages arrive. Owned by its
/// `HTTP2Transport`.
///
/// - Health `Check` answers SERVING once the default script's engine has loaded and while
///   the server is not draining (the truth of /readyz), NOT_SERVING otherwise, for the server
///   ("") and for `legible.v1.Recognizer`; NOT_FOUND for any other service.
/// - Health `Watch` sends the status at once and again at every change, until the call ends
///   (SERVICE_UNKNOWN for a service the server does not know, and the call stays open).
/// - Reflection answers each request on its stream (`ServerReflection`) until the client
///   half-closes.
final class GRPCServiceCall {
    let id: Int32
    let method: GRPCRequest.Method
    private unowned let transport: HTTP2Transport
    /// Requests of these services are small: a service name, a symbol.
    private var deframer = MessageDeframer(maxMessageBytes: 64 << 10)
    /// Watch: the service watched, and the status last sent.
    private var watched: String?
    private var lastSent: HealthCodec.ServingStatus?
    private var answered = false
    private(set) var ended = false

    /// The services whose health is the server's.
    static let servedServices: Set<String> = ["", "legible.v1.Recognizer"]

    init(id: Int32, method: GRPCRequest.Method, transport: HTTP2Transport) {
        self.id = id
        self.method = method
        self.transport = transport
    }

    /// Request bytes of this call.
    func received(_ bytes: [UInt8]) {
        guard !ended else { return }
        deframer.append(bytes)
        while !ended {
            do throws(LegibleError) {
                guard let payload = try deframer.next() else { return }
                try handle(payload)
            } catch {
                end(GRPCStatus.trailers(error.code, message: error.message))
            }
        }
    }

    private func handle(_ payload: [UInt8]) throws(LegibleError) {
        switch method {
        case .healthCheck:
            guard !answered else { throw LegibleError(.invalidArgument, "Check takes one request") }
            answered = true
            let service = try HealthCodec.decodeRequest(payload)
            guard Self.servedServices.contains(service) else {
                throw LegibleError(.notFound, "no service \(service)")
            }
            transport.send(HealthCodec.encodeResponse(status(of: service)), on: id)
            end(GRPCStatus.ok)
        case .healthWatch:
            guard !answered else { throw LegibleError(.invalidArgument, "Watch takes one request") }
            answered = true
            watched = try HealthCodec.decodeRequest(payload)
            healthChanged()
        case .reflection, .reflectionV1Alpha:
            transport.send(try ServerReflection.respond(to: payload), on: id)
        case .stream, .recognize:
            preconditionFailure("\(method) is a session")
        }
    }

    private func status(of service: String) -> HealthCodec.ServingStatus {
        guard Self.servedServices.contains(service) else { return .serviceUnknown }
        return transport.isServing ? .serving : .notServing
    }

    /// The server's readiness may have changed: a Watch sends the new status.
    func healthChanged() {
        guard !ended, method == .healthWatch, let watched else { return }
        let now = status(of: watched)
        guard now != lastSent else { return }
        lastSent = now
        transport.send(HealthCodec.encodeResponse(now), on: id)
    }

    /// The client half-closed: a call that was waiting for its request ends.
    func inputEnded() {
        guard !ended else { return }
        switch method {
        case .healthCheck, .healthWatch:
            if !answered { end(GRPCStatus.trailers(.invalidArgument, message: "no request arrived")) }
        default:
            end(GRPCStatus.ok)
        }
    }

    /// Ends the call with `trailers` (the server drains, or the call is done).
    func end(_ trailers: [HTTP2Header]) {
        guard !ended else { return }
        ended = true
        transport.finish(id, trailers: trailers)
    }

    /// The client reset the call, or the connection is gone.
    func lost() { ended = true }
}
