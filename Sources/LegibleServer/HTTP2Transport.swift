internal import LegibleCore
internal import LegibleHTTP2
internal import LegibleSockets
internal import LegibleWire

/// One HTTP/2 connection (gRPC with prior knowledge) on the event loop: owns the socket and
/// the `HTTP2ServerConnection`, opens a `GRPCStream` per call of Legible's service and hands
/// it to the server core as a session (`Server.adopt`); calls of gRPC's health service and
/// server reflection are answered here (`GRPCServiceCall`). On the event loop's thread only.
///
/// ```
///  socket ─▶ HTTP2ServerConnection ─▶ events ─▶ GRPCStream (per call) ─▶ SessionHandler
///  socket ◀── pending bytes ◀── HTTP2ServerConnection ◀── send/finish/reset ◀── GRPCStream
/// ```
///
/// Backpressure: a call's response bytes wait in the connection while the client's window
/// is shut; past `--max-write-queue-bytes` the call's session hears it is backed up (and
/// closes a client that does not read). Bytes nghttp2 produced and the socket did not take
/// are held here; while more than `--max-write-queue-bytes` of them wait, the connection is
/// not read. Request messages not yet whole, summed over the calls, count against the
/// server's `--max-buffered-bytes` (`ReadBudget`) as a framed connection's do.
final class HTTP2Transport: EventHandler, BudgetedReader {
    /// How long a draining connection whose calls have all ended waits for its client to open
    /// the flow-control window to their last answers before it is closed regardless.
    static let unreadAnswersSeconds = 5

    /// The server's name for this connection (its admission entry).
    let id: UInt64
    let socket: Socket
    private let connection: HTTP2ServerConnection
    private unowned let server: Server
    /// Calls of Legible's service (sessions), by stream id.
    private var streams: [Int32: GRPCStream] = [:]
    /// Calls of the health and reflection services, by stream id.
    private var serviceCalls: [Int32: GRPCServiceCall] = [:]
    /// Bytes nghttp2 produced that the socket has not taken yet.
    private var pending = UnsentBytes()
    private let watermarks: WriteWatermarks
    private var isClosed = false
    /// Not read because the server's pool for partial messages is spent (`ReadBudget`).
    private var budgetPaused = false
    private var goingAway = false
    /// The drain found calls open: their last answers are recent, and the socket lingers
    /// once they have left (`close(reason:lingering:)`). An idle connection is closed at once.
    private var lingersWhenDrained = false
    /// A connection refused at a connection limit: its first call is answered with this
    /// status (RESOURCE_EXHAUSTED and why), then GOAWAY; closed after `Server.refusalSeconds`
    /// if no call comes.
    private let refusal: GRPCRequest.Refusal?
    /// Wakes the transport at the earliest `grpc-timeout` of its calls (made with the first).
    private var deadlineTimer: OneShotTimer?
    /// When the connection last had no call open (for the idle deadline), nil while one is.
    private var idleSince: Duration?
    private var everHadCall = false

    /// The connection's bytes come in through `start(with:)`, after the sniffer's. With
    /// `refusing`, it serves no call: each is told that reason.
    init(id: UInt64, socket: Socket, refusing: String? = nil, server: Server) throws(LegibleError) {
        self.id = id
        self.socket = socket
        self.server = server
        refusal = refusing.map { .grpc(.resourceExhausted, $0) }
        let maxQueue = server.configuration.maxWriteQueueBytes
        watermarks = WriteWatermarks(high: maxQueue, low: maxQueue / 4)
        connection = try HTTP2ServerConnection()
        idleSince = server.now
    }

    var openCalls: Int { streams.count + serviceCalls.count }

    /// What the health service answers: the server is ready, and this connection not closing.
    var isServing: Bool { server.isReady && !goingAway }

    // MARK: Reading

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        if writable { flush() }
        if readable && !isClosed && !readingPaused { readAvailable() }
        if hangup && !isClosed { close(reason: "hang-up") }
    }

    private var readingPaused: Bool { budgetPaused || pending.count > watermarks.high }

    /// The budget has room again: read on.
    func resumeReading() {
        guard budgetPaused, !isClosed else { return }
        budgetPaused = false
        flush()
        // What TLS holds is read without waiting for the socket.
        readAgainIfBuffered()
    }

    /// Feeds bytes already read (the sniffed preface), then whatever else has arrived.
    func start(with firstBytes: [UInt8]) {
        firstBytes.withUnsafeBytes { receive($0) }
        if !isClosed { readAvailable() }
    }

    private func readAvailable() {
        for _ in 0..<8 {
            let outcome = withUnsafeTemporaryAllocation(byteCount: FramedStream.readChunk, alignment: 1) { buffer in
                Result { () throws(LegibleError) -> Int? in try socket.receive(into: buffer) }.map { count in
                    count.map { count in
                        if count > 0 { receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
                        return count
                    }
                }
            }
            switch outcome {
            case .failure: return close(reason: "read error")
            case .success(nil): return
            case .success(0): return close(reason: "client closed the connection")
            case .success: if isClosed || readingPaused { return }
            }
        }
        readAgainIfBuffered()
    }

    /// TLS may hold decrypted bytes the loop will not wake for: they are read on its next turn.
    private func readAgainIfBuffered() {
        guard !isClosed, !readingPaused, socket.hasBufferedInput else { return }
        let transport = LoopBound(self, loop: server.loop)
        server.loop.execute { transport.value.handleEvents(readable: true, writable: false, hangup: false) }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        server.metrics.bytes(received: bytes.count)
        let events: [HTTP2Event]
        do throws(LegibleError) {
            events = try connection.receive(bytes)
        } catch {
            server.log(.info, "HTTP/2 connection failed", ["reason": error.message])
            // nghttp2 queued a GOAWAY saying why: send it, then close.
            flush()
            return close(reason: "HTTP/2 protocol error")
        }
        for event in events { handle(event) }
        if !isClosed && !server.readBudget.holds(streams.values.reduce(0) { $0 + $1.partialBytes }, self) {
            budgetPaused = true
        }
        flush()
    }

    private func handle(_ event: HTTP2Event) {
        switch event {
        case .request(let id, let headers): open(id, headers: headers)
        case .data(let id, let bytes):
            streams[id]?.received(bytes)
            serviceCalls[id]?.received(bytes)
        case .endStream(let id):
            streams[id]?.inputEnded()
            serviceCalls[id]?.inputEnded()
        case .reset(let id, _):
            streams.removeValue(forKey: id)?.lost(reason: "client reset the call")
            serviceCalls.removeValue(forKey: id)?.lost()
        case .trailers, .goAway: break
        }
        noteIdle()
    }

    /// A call's headers arrived: refuse it, or open its stream and session.
    private func open(_ id: Int32, headers: [HTTP2Header]) {
        let request: GRPCRequest
        do throws(GRPCRequest.Refusal) {
            request = try GRPCRequest(headers: headers)
        } catch {
            return refuse(id, error)
        }
        if let refusal {
            refuse(id, refusal)
            return drain()
        }
        if goingAway { return refuse(id, .grpc(.unavailable, "the server is shutting down")) }
        let tokens = server.configuration.accessTokens
        if tokens.isRequired, let token = request.bearerToken, !tokens.accepts(token) {
            server.metrics.refusedSession(reason: "unauthenticated")
            return refuse(id, .grpc(.unauthenticated, "the bearer token is not valid"))
        }
        do throws(LegibleError) {
            try connection.respond(
                stream: id, headers: [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")])
        } catch {
            server.log(.warning, "cannot answer an HTTP/2 call", ["reason": error.message])
            return
        }
        everHadCall = true
        guard request.method.isSession else {
            serviceCalls[id] = GRPCServiceCall(id: id, method: request.method, transport: self)
            return
        }
        let stream = GRPCStream(
            id: id, method: request.method == .recognize ? .recognize : .stream, bearerToken: request.bearerToken,
            deadline: request.timeout.map { server.now + $0 }, maxMessageBytes: server.configuration.maxMessageBytes,
            transport: self)
        streams[id] = stream
        server.adopt(stream, connection: self.id)
        if stream.deadline != nil { scheduleDeadlines() }
    }

    private func refuse(_ id: Int32, _ refusal: GRPCRequest.Refusal) {
        try? connection.respondHeadersOnly(stream: id, headers: GRPCStatus.refusalHeaders(refusal))
    }

    // MARK: What the calls send

    func send(_ payload: [UInt8], on id: Int32) {
        guard !isClosed else { return }
        try? connection.send(stream: id, bytes: MessageFraming.frame(payload))
        flush()
    }

    /// Ends call `id` with `trailers` after what it sent; with `thenReset`, a client still
    /// sending on it is told to stop (RST_STREAM NO_ERROR after the trailers).
    func finish(_ id: Int32, trailers: [HTTP2Header], thenReset: Bool = false) {
        streams[id] = nil
        serviceCalls[id] = nil
        guard !isClosed else { return }
        try? connection.finish(stream: id, trailers: trailers, thenReset: thenReset)
        noteIdle()
        flush()
    }

    func reset(_ id: Int32) {
        streams[id] = nil
        guard !isClosed else { return }
        // CANCEL: the server gave up on the call (a client that does not read, one gone).
        try? connection.reset(stream: id, errorCode: 8)
        noteIdle()
        flush()
    }

    func discardQueued(on id: Int32) { connection.discardQueued(stream: id) }

    func queuedBytes(on id: Int32) -> Int { connection.queuedBytes(stream: id) }

    /// The server became ready, or began to drain: Watch calls send the new status.
    func healthChanged() {
        for call in Array(serviceCalls.values) { call.healthChanged() }
    }

    // MARK: Writing

    /// Writes what nghttp2 has to send, as far as the socket takes it.
    private func flush() {
        guard !isClosed else { return }
        do throws(LegibleError) {
            while true {
                if pending.isEmpty {
                    pending.replace(with: try connection.outgoingBytes())
                    if pending.isEmpty { break }
                }
                let sent = try pending.send(to: socket)
                if sent == 0 { break }
                server.metrics.bytes(sent: sent)
            }
        } catch {
            return close(reason: "write error")
        }
        for stream in streams.values { stream.checkBackpressure(watermarks) }
        if pending.isEmpty {
            // A refused connection waits for its client to close (or `Server.refusalSeconds`):
            // closing with the call's request bytes unread would reset the answer away.
            // Drained once the last answers have left, not merely been finished (the client's
            // flow-control window may hold them back until it reads on). Then the socket
            // lingers, open, until the client closes it (`close(reason:lingering:)`).
            if goingAway && openCalls == 0 && refusal == nil && !connection.hasResponsesInFlight {
                return close(reason: "drained", lingering: lingersWhenDrained)
            }
            if connection.isFinished { return close(reason: "HTTP/2 session ended") }
        }
        server.loop.modify(
            socket.descriptor, readable: !readingPaused, writable: !pending.isEmpty)
    }

    private func noteIdle() {
        if openCalls == 0 {
            if idleSince == nil { idleSince = server.now }
        } else {
            idleSince = nil
        }
    }

    // MARK: Time and shutdown

    /// Calls past their grpc-timeout end with DEADLINE_EXCEEDED; the timer is armed for the
    /// next one. Runs when the timer fires and on every tick (a manual clock moves only then).
    private func endCallsPastTheirDeadline(now: Duration) {
        for stream in Array(streams.values) {
            if let deadline = stream.deadline, now >= deadline { stream.deadlinePassed() }
        }
        scheduleDeadlines()
    }

    /// Arms the timer for the earliest deadline of the open calls, or disarms it.
    private func scheduleDeadlines() {
        guard !isClosed else { return }
        guard let next = streams.values.compactMap(\.deadline).min() else {
            deadlineTimer?.disarm()
            return
        }
        if deadlineTimer == nil {
            deadlineTimer = try? OneShotTimer(loop: server.loop) { [unowned self] in
                self.endCallsPastTheirDeadline(now: self.server.now)
            }
        }
        deadlineTimer?.arm(after: next - server.now)
    }

    /// Once a second: calls past their grpc-timeout end (the timer ends them on time; this
    /// catches a clock moved by hand); a connection with no call open for the idle deadline
    /// (the first-message deadline before its first call) is closed.
    func tick(now: Duration) {
        endCallsPastTheirDeadline(now: now)
        guard !isClosed, let idleSince else { return }
        if refusal != nil {
            if now - idleSince >= .seconds(Server.refusalSeconds) { close(reason: "refused") }
            return
        }
        if goingAway {
            // Every call ended, and their last answers still wait for a window the client
            // does not open: a drain does not wait for it forever.
            if now - idleSince >= .seconds(Self.unreadAnswersSeconds) { close(reason: "drained, answers unread") }
            return
        }
        let limit = Duration.seconds(
            everHadCall ? server.configuration.idleSeconds : server.configuration.firstMessageSeconds)
        if now - idleSince >= limit { drain() }
    }

    /// Says GOAWAY (no new calls) and closes once the open calls have finished: sessions end
    /// as the server's drain ends them; health watches hear NOT_SERVING and end, as do
    /// reflection calls.
    func drain() {
        guard !goingAway, !isClosed else { return }
        goingAway = true
        lingersWhenDrained = openCalls > 0 || connection.hasResponsesInFlight
        try? connection.goAway()
        for call in Array(serviceCalls.values) {
            call.healthChanged()
            call.end(GRPCStatus.ok)
        }
        flush()
    }

    /// With `lingering`, everything has been written and the socket goes to `LingeringCloses`
    /// with both sides open: an HTTP/2 client learns the end from GOAWAY and closes itself.
    /// Neither a reset (closing over the client's unread WINDOW_UPDATE or PING) nor the end
    /// of stream (grpc-core drops the bytes it read in the same read as the end, here the
    /// last answers and their trailers: "Stream removed") may come before it has read them.
    func close(reason: String, lingering: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        server.loop.unregister(socket.descriptor)
        server.readBudget.forget(self)
        deadlineTimer?.cancel()
        deadlineTimer = nil
        let open = streams.values
        streams.removeAll()
        for stream in open { stream.lost(reason: reason) }
        for call in serviceCalls.values { call.lost() }
        serviceCalls.removeAll()
        // Lingering, before `http2Closed`, which stops a draining server once nothing lingers.
        if lingering { server.lingeringCloses.close(socket) }
        server.http2Closed(self, reason: reason)
        if !lingering { socket.close() }
    }
}
