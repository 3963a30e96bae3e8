internal import Glibc
public import LegibleCore
internal import LegibleSockets
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
    private let socket: Socket
    private var deframer: MessageDeframer
    /// Encoded messages not yet taken by the kernel, from `unsentOffset` on.
    private var unsent: [UInt8] = []
    private var unsentOffset = 0
    public let address: ServerAddress
    /// The server's answer to the session's `StartSession`.
    public let started: SessionStarted

    /// Connects to the first of `addresses` that answers and starts a session, blocking until
    /// the server has answered `start`; from then on nothing blocks.
    ///
    /// - Throws: `.unavailable` when no server answers; the server's error when it refuses
    ///   the session.
    public init(addresses: [ServerAddress], start: StartSession, maxMessageBytes: Int = 64 << 20) throws(LegibleError) {
        var lastError = LegibleError(.unavailable, "no server address given")
        var connected: (Socket, ServerAddress)?
        for address in addresses {
            do throws(LegibleError) {
                connected = (try Socket.connect(to: address), address)
                break
            } catch {
                lastError = error
            }
        }
        guard let (socket, address) = connected else {
            throw LegibleError(.unavailable, "cannot reach a server: \(lastError.message)")
        }
        self.socket = socket
        self.address = address
        deframer = MessageDeframer(maxMessageBytes: maxMessageBytes)
        try socket.sendAll(MessageFraming.frame(ProtobufCodec.encode(ClientMessage.start(start))))
        var answer: ServerMessage?
        while answer == nil {
            guard let messages = try Self.read(socket, into: &deframer, blocking: true) else {
                throw LegibleError(.unavailable, "the server closed the stream before starting the session")
            }
            answer = messages.first
        }
        switch answer {
        case .started(let started)?: self.started = started
        case .error(let error)?: throw error.legibleError
        default: throw LegibleError(.internal, "unexpected first message from the server")
        }
        try socket.setNonBlocking()
    }

    /// The socket to poll: readable for `receive`, writable for `flush`.
    public var descriptor: Int32 { socket.descriptor }

    /// Whether part of a message still waits for the socket to take it.
    public var hasUnsentBytes: Bool { unsentOffset < unsent.count }

    /// Sends what the socket takes now of the bytes held back; true when none are left.
    @discardableResult
    public func flush() throws(LegibleError) -> Bool {
        while hasUnsentBytes {
            let sent = unsent.withUnsafeBytes { raw in
                Result { () throws(LegibleError) -> Int in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[unsentOffset...]))
                }
            }
            let count = try sent.get()
            if count == 0 { return false }
            unsentOffset += count
        }
        unsent.removeAll(keepingCapacity: true)
        unsentOffset = 0
        return true
    }

    /// Sends `frame` if the socket has taken everything sent before it; false (and nothing
    /// sent) when it has not, so the caller skips the frame instead of queueing it.
    public func offerFrame(_ frame: Frame) throws(LegibleError) -> Bool {
        guard try flush() else { return false }
        MessageFraming.appendFrame(ProtobufCodec.encode(ClientMessage.frame(frame)), to: &unsent)
        try flush()
        return true
    }

    /// Queues a small control message (`Ping`, `EndSession`) behind whatever is held back and
    /// sends what fits now.
    public func enqueue(_ message: ClientMessage) throws(LegibleError) {
        MessageFraming.appendFrame(ProtobufCodec.encode(message), to: &unsent)
        try flush()
    }

    /// The messages that have arrived, without waiting; nil when the server closed the stream.
    ///
    /// - Throws: `.unavailable` when the stream ends mid-message or the socket fails.
    public func receive() throws(LegibleError) -> [ServerMessage]? {
        try Self.read(socket, into: &deframer, blocking: false)
    }

    /// Reads until at least one whole message is buffered (blocking) or the socket has nothing
    /// more now (non-blocking), and decodes every whole message.
    private static func read(_ socket: Socket, into deframer: inout MessageDeframer, blocking: Bool)
        throws(LegibleError) -> [ServerMessage]?
    {
        var messages: [ServerMessage] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            while let payload = try deframer.next() { messages.append(try ProtobufCodec.decodeServerMessage(payload)) }
            if blocking && !messages.isEmpty { return messages }
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(LegibleError) -> Int? in try socket.receive(into: buffer) }
            }
            guard let count = try result.get() else { return messages }  // would block
            if count == 0 {
                if !deframer.isAtMessageBoundary {
                    throw LegibleError(.unavailable, "the server closed the stream mid-message")
                }
                return messages.isEmpty ? nil : messages
            }
            deframer.append(chunk[0..<count])
        }
    }
}
