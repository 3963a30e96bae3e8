internal import LegibleCore
internal import LegibleSockets
internal import LegibleWire
internal import LegibleWireProtobuf

/// The framed protocol over a socket as a `SessionStream`: reads without blocking, decodes
/// whole messages for its handler, and writes through a `FramedStream`'s queue. Lives on the
/// event loop's thread only.
///
/// Backpressure: when more than `--max-write-queue-bytes` wait to be written (a client that
/// sends but does not read), the transport stops reading until the queue drains below a
/// quarter of that (its stream's watermarks); with one pending frame per session that bounds
/// its memory.
final class FramedTransport: EventHandler, SessionStream, BudgetedReader {
    weak var handler: SessionHandler?
    private let stream: FramedStream
    private let loop: EventLoop
    private let metrics: ServerMetrics
    private let log: Log
    private var closeAfterFlush = false
    private var readingPaused = false
    /// Not read because the server's pool for partial messages is spent (`ReadBudget`).
    private var budgetPaused = false
    private let budget: ReadBudget
    private let lingeringCloses: LingeringCloses
    private var peerFinishedSending = false
    private var isClosed = false
    /// `--max-message-bytes`, taken once the session has started.
    private let maxMessageBytes: Int
    private var started = false

    /// `startMessageBytes`: the largest message before the session starts.
    init(socket: Socket, maxMessageBytes: Int, startMessageBytes: Int, maxWriteQueueBytes: Int, server: Server) {
        self.loop = server.loop
        self.metrics = server.metrics
        self.log = server.log
        self.budget = server.readBudget
        self.lingeringCloses = server.lingeringCloses
        self.maxMessageBytes = maxMessageBytes
        self.stream = FramedStream(
            socket: socket, maxMessageBytes: min(startMessageBytes, maxMessageBytes),
            watermarks: WriteWatermarks(high: maxWriteQueueBytes, low: maxWriteQueueBytes / 4))
    }

    var socket: Socket { stream.socket }
    var queuedBytes: Int { stream.queuedBytes }
    private var sessionID: String { handler?.sessionID ?? "" }

    // MARK: Events from the loop

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        if writable { flush() }
        if readable && !isClosed && !readingPaused && !budgetPaused && !peerFinishedSending { readAvailable() }
        // Both directions gone (EPOLLHUP/EPOLLERR): nobody is left to answer.
        if hangup && !isClosed { abort(reason: "hang-up") }
    }

    /// Takes `firstBytes` (what the server read to tell the protocol) as the start of the
    /// stream and reads on. What has arrived is read before any message is acted on, as when
    /// the first read takes it all: a client refused at once (a bad token) must not find its
    /// connection reset over bytes the server never read.
    func start(with firstBytes: [UInt8]) {
        stream.deliver(firstBytes)
        metrics.bytes(received: firstBytes.count)
        readArrived()
        if !isClosed && !closeAfterFlush {
            deliverMessages()
            handler?.bytesArrived(inMessage: !stream.isAtMessageBoundary)
        }
    }

    func readArrived() {
        if !isClosed && !readingPaused && !budgetPaused && !peerFinishedSending && !closeAfterFlush { readAvailable() }
    }

    private func readAvailable() {
        // A bounded number of reads per wake-up keeps one busy client from starving the rest.
        for _ in 0..<8 {
            switch Result(catching: { () throws(LegibleError) -> FramedStream.ReadResult in try stream.readOnce() }) {
            case .failure:
                abort(reason: "read error")
                return
            case .success(.wouldBlock):
                return
            case .success(.endOfStream):
                endOfInput()
                return
            case .success(.received(let count)):
                metrics.bytes(received: count)
                deliverMessages()
                handler?.bytesArrived(inMessage: !stream.isAtMessageBoundary)
                // Closed, the transport is forgotten by the budget and must not be counted again.
                if isClosed { return }
                if !budget.holds(stream.bufferedByteCount, self) {
                    budgetPaused = true
                    watch()
                    return
                }
                if readingPaused || closeAfterFlush { return }
            }
        }
        readAgainIfBuffered()
    }

    private func deliverMessages() {
        while !isClosed && !closeAfterFlush, let handler {
            let payload: [UInt8]
            do throws(LegibleError) {
                guard let next = try stream.nextMessage() else { return }
                payload = next
            } catch {
                log(.info, "stream failed", ["session": sessionID, "code": error.code.name, "reason": error.message])
                handler.failed(
                    started || error.code != .resourceExhausted
                        ? error
                        : LegibleError(
                            error.code,
                            error.message + " before the session has started (StartSession first; frames up to "
                                + "\(maxMessageBytes) bytes after it)"))
                return
            }
            do throws(LegibleError) {
                handler.received(try ProtobufCodec.decodeClientMessage(payload))
            } catch {
                handler.failed(error)
            }
        }
    }

    /// The client finished sending: a half-close the handler may accept (answers still go
    /// out), or the client gone.
    private func endOfInput() {
        peerFinishedSending = true
        guard handler?.inputEnded(midMessage: !stream.isAtMessageBoundary) ?? false, !isClosed else { return }
        loop.modify(socket.descriptor, readable: false, writable: stream.hasQueuedBytes)
    }

    // MARK: SessionStream

    func write(_ message: ServerMessage) {
        guard !isClosed else { return }
        stream.enqueue(ProtobufCodec.encode(message))
        flush()
    }

    func finish() {
        guard !isClosed else { return }
        closeAfterFlush = true
        flush()
    }

    func discardQueuedWrites() { stream.discardQueue() }

    func sessionStarted() {
        started = true
        stream.maxMessageBytes = maxMessageBytes
    }

    func abort(reason: String) { close(reason: reason) }

    // MARK: Writing

    private func flush() {
        guard !isClosed else { return }
        do throws(LegibleError) {
            let sent = try stream.flush()
            if sent > 0 { metrics.bytes(sent: sent) }
        } catch {
            close(reason: "write error")
            return
        }
        if !stream.hasQueuedBytes && closeAfterFlush {
            // Everything is written: half-close so the client reads end of stream, then let go
            // once it stops sending (a frame still on its way must not reset what it has not read).
            socket.shutdownWrite()
            close(reason: "finished", lingering: !peerFinishedSending)
            return
        }
        if readingPaused != stream.isBackedUp {
            readingPaused = stream.isBackedUp
            handler?.writeQueue(backedUp: readingPaused)
        }
        watch()
    }

    /// The budget has room again: read on.
    func resumeReading() {
        guard budgetPaused, !isClosed else { return }
        budgetPaused = false
        watch()
    }

    /// Tells the loop what to wake this transport for.
    private func watch() {
        let readable = !readingPaused && !budgetPaused && !peerFinishedSending && !closeAfterFlush
        loop.modify(socket.descriptor, readable: readable, writable: stream.hasQueuedBytes)
        if readable { readAgainIfBuffered() }
    }

    /// TLS may hold decrypted bytes the loop will not wake for: they are read on its next turn.
    private func readAgainIfBuffered() {
        guard socket.hasBufferedInput else { return }
        let transport = LoopBound(self, loop: loop)
        loop.execute { transport.value.readArrived() }
    }

    private func close(reason: String, lingering: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        loop.unregister(socket.descriptor)
        budget.forget(self)
        // Lingering, the socket is handed over before `closed`, which stops a draining server
        // once nothing lingers (the client saw the end at the write shutdown already).
        if lingering { lingeringCloses.close(socket) }
        // Bookkeeping (gauges, scheduler) before the descriptor goes, so that whoever sees the
        // socket closed also sees the session gone from /metrics.
        handler?.closed(reason: reason)
        if !lingering { socket.close() }
    }
}

/// A transport whose reading the server's `ReadBudget` may pause, and resume.
protocol BudgetedReader: AnyObject {
    /// The budget has room again: read on.
    func resumeReading()
}

/// The server's `PartialMessagePool` and the transports it has paused; on the loop thread.
final class ReadBudget {
    private var pool: PartialMessagePool<ObjectIdentifier>
    private var paused: [ObjectIdentifier: any BudgetedReader] = [:]
    private let metrics: ServerMetrics

    /// Each connection holds up to this much of a message outside the pool.
    static let allowance = 2 * 1024 * 1024

    init(pool: Int, metrics: ServerMetrics) {
        self.pool = PartialMessagePool(allowance: Self.allowance, pool: pool)
        self.metrics = metrics
    }

    /// `reader` holds `bytes` of messages not yet whole: whether it may read on.
    func holds(_ bytes: Int, _ reader: any BudgetedReader) -> Bool {
        let id = ObjectIdentifier(reader)
        let before = pool.heldBytes
        let decision = pool.holds(bytes, id)
        if pool.heldBytes != before { metrics.partialMessageBytes(pool.heldBytes) }
        if !decision.mayRead {
            paused[id] = reader
            metrics.readPausedForMemory()
        }
        resume(decision.resume)
        return decision.mayRead
    }

    /// `reader` closed.
    func forget(_ reader: any BudgetedReader) {
        let id = ObjectIdentifier(reader)
        paused[id] = nil
        let before = pool.heldBytes
        let resumed = pool.forget(id)
        if pool.heldBytes != before { metrics.partialMessageBytes(pool.heldBytes) }
        resume(resumed)
    }

    private func resume(_ ids: [ObjectIdentifier]) {
        for id in ids { paused.removeValue(forKey: id)?.resumeReading() }
    }
}
