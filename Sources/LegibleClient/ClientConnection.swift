public import LegibleCore
internal import LegibleSockets
public import LegibleWire
internal import LegibleWireProtobuf

/// A blocking client stream to a Legible server: send `ClientMessage`s, read `ServerMessage`s.
/// For command-line tools; one thread uses it at a time.
public final class ClientConnection {
    private let socket: Socket
    private var deframer: MessageDeframer
    public let address: ServerAddress

    /// Connects to the first of `addresses` that answers.
    public init(addresses: [ServerAddress], maxMessageBytes: Int = 64 << 20) throws(LegibleError) {
        var lastError = LegibleError(.unavailable, "no server address given")
        for address in addresses {
            do throws(LegibleError) {
                socket = try Socket.connect(to: address)
                self.address = address
                deframer = MessageDeframer(maxMessageBytes: maxMessageBytes)
                return
            } catch {
                lastError = error
            }
        }
        throw LegibleError(.unavailable, "cannot reach a server: \(lastError.message)")
    }

    public func send(_ message: ClientMessage) throws(LegibleError) {
        try socket.sendAll(MessageFraming.frame(ProtobufCodec.encode(message)))
    }

    /// The next message, or nil when the server closed the stream.
    public func receive() throws(LegibleError) -> ServerMessage? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let payload = try deframer.next() { return try ProtobufCodec.decodeServerMessage(payload) }
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(LegibleError) -> Int? in try socket.receive(into: buffer) }
            }
            guard let count = try result.get(), count > 0 else {
                if deframer.isAtMessageBoundary { return nil }
                throw LegibleError(.unavailable, "the server closed the stream mid-message")
            }
            deframer.append(chunk[0..<count])
        }
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
