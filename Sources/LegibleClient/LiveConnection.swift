internal import Glibc
public import LegibleCore
internal import LegibleSockets
public import LegibleTLS
public import LegibleWire
internal import LegibleWireProtobuf

/// A client stream that never blocks once its session has started, for sending frames the
/// way a camera produces them (`legible stream`).
///
/// A camera cannot wait for a slow network: a frame either fits into the socket now or it is
/// not sent. `offerFrame` therefore takes a frame only when everything sent before has left
/// for the kernel; the tail of a message the kernel did not take whole stays here (at most
/// one frame's worth) and goes out with `flush` when the socket is writable again. The owner
/// polls `descriptor` (readable always, writable while `hasUnsentBytes`) from one thread.
public final class LiveConnection {
    private let stream: any MessageStream
    public let address: ServerAddress
    /// The server's answer to the session's `StartSession`.
    public let started: SessionStarted

    /// Connects to the first of `addresses` that answers and starts a session, blocking until
    /// the server has answered `start`; from then on nothing blocks.
    ///
    /// - Throws: `.unavailable` when no server answers; the server's error when it refuses
    ///   the session.
    public init(
        addresses: [ServerAddress], start: StartSession, transport: ClientTransport = .framed,
        tls: TLSClientContext? = nil, maxMessageBytes: Int = 64 << 20
    ) throws(LegibleError) {
        let (socket, address) = try Socket.connect(toFirstOf: addresses)
        self.address = address
        stream = try transport.stream(on: socket, address: address, maxMessageBytes: maxMessageBytes, tls: tls)
        stream.enqueue(ProtobufCodec.encode(ClientMessage.start(start)))
        try stream.flush()
        guard let payload = try stream.receiveMessage() else {
            throw LegibleError(.unavailable, "the server closed the stream before starting the session")
        }
        switch try ProtobufCodec.decodeServerMessage(payload) {
        case .started(let started): self.started = started
        case .error(let error): throw error.legibleError
        default: throw LegibleError(.internal, "unexpected first message from the server")
        }
        try socket.setNonBlocking()
    }

    /// The socket to poll: readable for `receive`, writable for `flush`.
    public var descriptor: Int32 { stream.socket.descriptor }

    /// Whether part of a message still waits for the socket to take it.
    public var hasUnsentBytes: Bool { stream.hasQueuedBytes }

    /// Sends what the socket takes now of the bytes held back; true when none are left.
    @discardableResult
    public func flush() throws(LegibleError) -> Bool {
        try stream.flush()
        return !stream.hasQueuedBytes
    }

    /// Sends `frame` if the socket has taken everything sent before it; false (and nothing
    /// sent) when it has not, so the caller skips the frame instead of queueing it.
    public func offerFrame(_ frame: Frame) throws(LegibleError) -> Bool {
        guard try flush() else { return false }
        stream.enqueue(ProtobufCodec.encode(ClientMessage.frame(frame)))
        try flush()
        return true
    }

    /// Queues a small control message (`Ping`, `EndSession`) behind whatever is held back and
    /// sends what fits now.
    public func enqueue(_ message: ClientMessage) throws(LegibleError) {
        stream.enqueue(ProtobufCodec.encode(message))
        try flush()
    }

    /// Closes the socket now, so that the server sees the stream end at once rather than when
    /// this object's last reference goes (a server draining for a restart waits for its
    /// clients to close). Nothing may be sent or received after it.
    public func close() {
        stream.socket.close()
    }

    /// The messages that have arrived, without waiting; nil when the server closed the stream.
    ///
    /// - Throws: `.unavailable` when the stream ends mid-message or the socket fails.
    public func receive() throws(LegibleError) -> [ServerMessage]? {
        var messages: [ServerMessage] = []
        while true {
            while let payload = try stream.nextMessage() {
                messages.append(try ProtobufCodec.decodeServerMessage(payload))
            }
            switch try stream.readOnce() {
            case .received: continue
            case .wouldBlock: return messages
            case .endOfStream:
                guard stream.isAtMessageBoundary else {
                    throw LegibleError(.unavailable, "the server closed the stream mid-message")
                }
                return messages.isEmpty ? nil : messages
            }
        }
    }
}
