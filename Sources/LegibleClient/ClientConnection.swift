public import LegibleCore
internal import LegibleSockets
public import LegibleTLS
public import LegibleWire
internal import LegibleWireProtobuf

/// A blocking client stream to a Legible server: send `ClientMessage`s, read `ServerMessage`s.
/// For command-line tools; one thread uses it at a time.
public final class ClientConnection {
    private let stream: any MessageStream
    public let address: ServerAddress

    /// Connects to the first of `addresses` that answers, and speaks `transport` there.
    public init(
        addresses: [ServerAddress], transport: ClientTransport = .framed, tls: TLSClientContext? = nil,
        maxMessageBytes: Int = 64 << 20
    ) throws(LegibleError) {
        let (socket, address) = try Socket.connect(toFirstOf: addresses)
        self.address = address
        stream = try transport.stream(on: socket, address: address, maxMessageBytes: maxMessageBytes, tls: tls)
    }

    public func send(_ message: ClientMessage) throws(LegibleError) {
        stream.enqueue(ProtobufCodec.encode(message))
        try stream.flush()
    }

    /// The next message, or nil when the server closed the stream.
    public func receive() throws(LegibleError) -> ServerMessage? {
        guard let payload = try stream.receiveMessage() else { return nil }
        return try ProtobufCodec.decodeServerMessage(payload)
    }

    /// Starts a session and returns the server's answer.
    public func startSession(_ start: StartSession) throws(LegibleError) -> SessionStarted {
        try send(.start(start))
        switch try receive() {
        case .started(let started)?: return started
        case .error(let error)?: throw error.legibleError
        case nil: throw LegibleError(.unavailable, "the server closed the stream")
        default: throw LegibleError(.internal, "unexpected first message from the server")
        }
    }
}
