public import LegibleCore
public import LegibleWire

/// One stream of gRPC length-prefixed messages over a socket, both ways: reads go through a
/// `MessageDeframer`, writes through a queue of framed messages that the socket takes as it
/// can. The one framed-stream type of the server's connections, `LegibleClient` and
/// `legible-load`; blocking or not is the socket's mode.
///
/// ```
///  socket ─▶ readOnce() ─▶ deframer ─▶ nextMessage()          (payloads, decoded by the owner)
///  enqueue(payload) ─▶ queue (watermarks) ─▶ flush() ─▶ socket
/// ```
///
/// Backpressure: past `watermarks.high` queued bytes the stream `isBackedUp` (its owner stops
/// reading, so a peer that does not read cannot grow the queue without bound) until the queue
/// falls under `watermarks.low`.
public final class FramedStream: MessageStream {
    public let socket: Socket
    private var deframer: MessageDeframer
    public let watermarks: WriteWatermarks
    /// Framed messages not yet taken whole by the socket, from `head` on; `tag` is the owner's
    /// (legible-load: the frame index), reported when its last byte leaves.
    private var queue: [(bytes: [UInt8], tag: Int?)] = []
    private var head = 0
    /// Bytes of `queue[head]` the socket has taken.
    private var headOffset = 0
    /// Bytes queued and not yet sent.
    public private(set) var queuedBytes = 0
    /// Over the high watermark, and not yet back under the low one.
    public private(set) var isBackedUp = false

    /// Bytes read from the socket in one call.
    public static let readChunk = 64 * 1024

    public init(socket: Socket, maxMessageBytes: Int, watermarks: WriteWatermarks = .unbounded) {
        self.socket = socket
        self.deframer = MessageDeframer(maxMessageBytes: maxMessageBytes)
        self.watermarks = watermarks
    }

    // MARK: Reading

    public enum ReadResult: Sendable, Equatable {
        /// This many bytes arrived (whole messages, if any, wait in `nextMessage()`).
        case received(Int)
        /// A non-blocking socket has nothing now.
        case wouldBlock
        /// The peer finished sending (see `isAtMessageBoundary` for whether it did so cleanly).
        case endOfStream
    }

    /// One read from the socket; throws what the socket throws.
    public func readOnce() throws(LegibleError) -> ReadResult {
        // A buffer for this call only: an idle connection holds no read buffer.
        try withUnsafeTemporaryAllocation(byteCount: Self.readChunk, alignment: 1) {
            (buffer) throws(LegibleError) -> ReadResult in
            guard let count = try socket.receive(into: buffer) else { return .wouldBlock }
            if count == 0 { return .endOfStream }
            deframer.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            return .received(count)
        }
    }

    /// Takes bytes its owner read from the socket before the stream had it (a server reads a
    /// connection's first bytes to tell its protocol).
    public func deliver(_ bytes: [UInt8]) { deframer.append(bytes) }

    /// The next whole message's payload, or nil when more bytes are needed. Throws the
    /// deframer's error (over the size limit, a flag byte other than 0) from then on.
    public func nextMessage() throws(LegibleError) -> [UInt8]? { try deframer.next() }

    /// The largest message `nextMessage()` takes; checked when a message's header is read.
    public var maxMessageBytes: Int {
        get { deframer.maxMessageBytes }
        set { deframer.maxMessageBytes = newValue }
    }

    /// Bytes of a message not yet whole (what the peer makes this stream hold).
    public var bufferedByteCount: Int { deframer.bufferedByteCount }

    /// No part of a message is buffered: a stream that ends now ends cleanly.
    public var isAtMessageBoundary: Bool { deframer.isAtMessageBoundary }

    // MARK: Writing

    /// Frames `payload` and queues it behind what is queued; nothing is sent until `flush`.
    public func enqueue(_ payload: [UInt8], tag: Int?) {
        let framed = MessageFraming.frame(payload)
        queuedBytes += framed.count
        queue.append((framed, tag))
        if queuedBytes > watermarks.high { isBackedUp = true }
    }

    public var hasQueuedBytes: Bool { queuedBytes > 0 }

    /// Sends what the socket takes now (all of it, on a blocking socket); `sent` hears the tag
    /// of each tagged message that left whole. Returns the bytes sent.
    @discardableResult
    public func flush(sent: (Int) -> Void) throws(LegibleError) -> Int {
        var total = 0
        while head < queue.count {
            let offset = headOffset
            let count = try queue[head].bytes.withUnsafeBytes { raw in
                Result { () throws(LegibleError) -> Int in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
            }.get()
            if count == 0 { break }
            total += count
            queuedBytes -= count
            headOffset += count
            if headOffset == queue[head].bytes.count {
                if let tag = queue[head].tag { sent(tag) }
                queue[head].bytes = []
                head += 1
                headOffset = 0
            }
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: queue.capacity <= 64)
            head = 0
        } else if head >= 32 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
        if queuedBytes < watermarks.low { isBackedUp = false }
        return total
    }

    /// Forgets everything queued (a peer that will not read it).
    public func discardQueue() {
        queue.removeAll()
        head = 0
        headOffset = 0
        queuedBytes = 0
        isBackedUp = false
    }
}

/// A client's stream of length-prefixed messages, both ways, over a socket: Legible's framed
/// protocol (`FramedStream`) or one gRPC `Recognizer/Stream` call over HTTP/2
/// (`GRPCClientStream`, LegibleHTTP2). The clients (`legible`, `legible-load`) speak either
/// through this.
public protocol MessageStream: AnyObject {
    var socket: Socket { get }
    /// One read from the socket: bytes arrived, none now, or the stream ended.
    func readOnce() throws(LegibleError) -> FramedStream.ReadResult
    /// The next whole message's payload, or nil when more bytes are needed.
    func nextMessage() throws(LegibleError) -> [UInt8]?
    /// No part of a message is buffered: a stream that ends now ends cleanly.
    var isAtMessageBoundary: Bool { get }
    /// Queues `payload` as one message; `tag` is reported by `flush` when it has left whole.
    func enqueue(_ payload: [UInt8], tag: Int?)
    var hasQueuedBytes: Bool { get }
    /// Sends what the socket takes now; returns the bytes sent.
    @discardableResult
    func flush(sent: (Int) -> Void) throws(LegibleError) -> Int
    /// Forgets what is queued (a peer that will not read it).
    func discardQueue()
}

extension MessageStream {
    public func enqueue(_ payload: [UInt8]) { enqueue(payload, tag: nil) }

    @discardableResult
    public func flush() throws(LegibleError) -> Int { try flush(sent: { _ in }) }

    /// Blocks (on a blocking socket) until a whole message is here; nil when the stream ends
    /// cleanly between messages.
    ///
    /// - Throws: `.unavailable` when it ends mid-message; the socket's or the stream's error.
    public func receiveMessage() throws(LegibleError) -> [UInt8]? {
        while true {
            if let payload = try nextMessage() { return payload }
            switch try readOnce() {
            case .received: continue
            case .wouldBlock: return nil
            case .endOfStream:
                if isAtMessageBoundary { return nil }
                throw LegibleError(.unavailable, "the stream ended in the middle of a message")
            }
        }
    }
}

/// The write queue's bounds: reading stops over `high` queued bytes and starts again under `low`.
public struct WriteWatermarks: Sendable, Equatable {
    public var high: Int
    public var low: Int

    public init(high: Int, low: Int) {
        precondition(low <= high, "the low watermark must not be above the high one")
        self.high = high
        self.low = low
    }

    /// No backpressure: a client's own queue, bounded by what its owner enqueues.
    public static let unbounded = WriteWatermarks(high: .max, low: .max)
}

extension Socket {
    /// Connects to the first of `addresses` that answers, in order.
    ///
    /// - Throws: `.unavailable` naming the last failure when none does.
    public static func connect(toFirstOf addresses: [ServerAddress]) throws(LegibleError) -> (Socket, ServerAddress) {
        var lastError = LegibleError(.unavailable, "no server address given")
        for address in addresses {
            do throws(LegibleError) {
                return (try Socket.connect(to: address), address)
            } catch {
                lastError = error
            }
        }
        throw LegibleError(.unavailable, "cannot reach a server: \(lastError.message)")
    }
}
