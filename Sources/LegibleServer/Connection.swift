internal import Glibc
internal import LegibleCore
internal import LegibleSessions
internal import LegibleSockets
internal import LegibleWire
internal import LegibleWireProtobuf

/// One client stream: reads messages without blocking, drives its session's state machine,
/// and writes what the machine says to send. Lives on the event loop's thread only.
///
/// Backpressure: when more than `writeHighWater` bytes wait to be written (a client that
/// sends but does not read), the connection stops reading until the queue drains below
/// `writeLowWater`; with one pending frame per session that bounds its memory.
final class Connection: EventHandler {
    let serial: UInt64
    let socket: Socket
    let peer: String
    private unowned let server: Server
    private var machine: SessionStateMachine
    private var deframer: MessageDeframer
    private var writeBuffer: [UInt8] = []
    private var writeOffset = 0
    private var closeAfterFlush = false
    private var readingPaused = false
    private var peerFinishedSending = false
    private(set) var isClosed = false
    /// Counted against `--max-sessions` (StartSession was accepted).
    private(set) var admitted = false
    /// Since when the write queue has been over its high-water mark (the client is not reading).
    private var stalledSince: ContinuousClock.Instant?
    /// What the session's results so far tell the next frame's recognition.
    private var scene = SceneState()
    /// The next answer is a drop for age (`max_frame_age_ms`), not a replacement (metrics).
    private var droppingTooOld = false
    /// For the deadlines: when the client connected, sent its last whole message, and began
    /// the message still arriving (nil between messages).
    private let connectedAt = ContinuousClock.now
    private var lastMessageAt = ContinuousClock.now
    private var partialSince: ContinuousClock.Instant?

    static let readChunk = 64 * 1024
    /// Over this many queued bytes the connection stops reading (`--max-write-queue-bytes`);
    /// under a quarter of it, it reads again.
    private var writeHighWater: Int { server.configuration.maxWriteQueueBytes }
    private var writeLowWater: Int { server.configuration.maxWriteQueueBytes / 4 }

    init(
        serial: UInt64, socket: Socket, peer: String, server: Server, configuration: SessionConfiguration,
        maxMessageBytes: Int
    ) {
        self.serial = serial
        self.socket = socket
        self.peer = peer
        self.server = server
        self.machine = SessionStateMachine(configuration: configuration)
        self.deframer = MessageDeframer(maxMessageBytes: maxMessageBytes)
    }

    var sessionID: String { machine.configuration.sessionID }
    var summary: SessionSummary { machine.summary }

    // MARK: Events from the loop

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        if writable { flush() }
        if readable && !isClosed && !readingPaused && !peerFinishedSending { readAvailable() }
        // Both directions gone (EPOLLHUP/EPOLLERR): nobody is left to answer.
        if hangup && !isClosed { disconnect(reason: "hang-up") }
    }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: Connection.readChunk)
        // A bounded number of reads per wake-up keeps one busy client from starving the rest.
        for _ in 0..<8 {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(LegibleError) -> Int? in try socket.receive(into: buffer) }
            }
            switch result {
            case .failure:
                disconnect(reason: "read error")
                return
            case .success(nil):
                return
            case .success(0):
                endOfInput()
                return
            case .success(let count?):
                server.metrics.bytes(received: count)
                deframer.append(chunk[0..<count])
                drainMessages()
                if deframer.isAtMessageBoundary {
                    partialSince = nil
                } else if partialSince == nil {
                    partialSince = ContinuousClock.now
                }
                if isClosed || readingPaused || closeAfterFlush { return }
            }
        }
    }

    private func drainMessages() {
        while !isClosed && !closeAfterFlush {
            let payload: [UInt8]
            do throws(LegibleError) {
                guard let next = try deframer.next() else { return }
                payload = next
            } catch {
                server.log(
                    .info, "stream failed", ["session": sessionID, "code": error.code.name, "reason": error.message])
                perform(machine.streamFailed(error))
                return
            }
            do throws(LegibleError) {
                let message = try ProtobufCodec.decodeClientMessage(payload)
                lastMessageAt = ContinuousClock.now
                partialSince = nil
                if case .frame = message {
                    server.frameArrived()
                    server.metrics.frameReceived(script: mainScript)
                }
                perform(machine.receive(message))
            } catch {
                perform(machine.streamFailed(error))
            }
        }
    }

    /// The client finished sending. After EndSession that is a half-close and the answers
    /// still go out; before it, the client has gone away.
    private func endOfInput() {
        peerFinishedSending = true
        if case .draining = machine.state {
            server.loop.modify(socket.descriptor, readable: false, writable: pendingWriteBytes > 0)
        } else if !closeAfterFlush {
            if !deframer.isAtMessageBoundary {
                server.log(.info, "client disconnected mid-message", ["session": sessionID])
            }
            disconnect(reason: "client closed the stream")
        }
    }

    // MARK: Actions

    /// Carries out what the state machine decided.
    func perform(_ actions: [SessionStateMachine.Action]) {
        // The machine closes a session in the same batch as its last message (the summary or a
        // fatal error): the session leaves the gauges before that message is written, so a
        // client that has read it and then reads /metrics finds the session gone.
        if actions.contains(where: { if case .close = $0 { true } else { false } }) { endSession() }
        for action in actions {
            guard !isClosed else { return }
            switch action {
            case .register(let settings):
                guard server.admit(self) else {
                    // Past --max-sessions: refused at once, before SessionStarted.
                    perform(
                        machine.streamFailed(
                            LegibleError(.unavailable, "the server is at its limit of sessions; try again later")))
                    return
                }
                admitted = true
                server.register(self, settings: settings)
            case .update(let settings):
                server.update(self, settings: settings)
            case .send(let message):
                if case .result(let result) = message {
                    server.metrics.answered(result, script: mainScript, droppedTooOld: droppingTooOld)
                } else if case .error(let error) = message, error.code == LegibleError.Code.unauthenticated.rawValue {
                    server.metrics.refusedSession(reason: "unauthenticated")
                }
                enqueue(message)
            case .submit(let frame, let settings):
                server.submit(frame, settings: settings, from: self)
            case .close:
                closeAfterFlush = true
                flush()
            }
        }
    }

    /// A frame's answer from the scheduler or an engine.
    func answer(_ result: FrameResult, droppedTooOld: Bool = false) {
        droppingTooOld = droppedTooOld
        defer { droppingTooOld = false }
        perform(machine.frameAnswered(result))
    }

    /// The session's main script, for metric labels.
    private var mainScript: Script {
        switch machine.state {
        case .active(let settings), .draining(let settings, _): settings.script
        case .awaitingStart, .closed: .default
        }
    }

    /// What the engine needs from this session's past for its next frame.
    func sceneSnapshot(now: Duration) -> SceneSnapshot { scene.snapshot(now: now) }

    /// An engine read a frame of this session: its result, after the session's own steps
    /// (track ids, stable counts, changes).
    func recognized(_ frame: Frame, _ recognition: FrameOutcome.Recognition, settings: SessionSettings, timing: Timing)
    {
        var text = recognition.text
        let (changes, stable) = scene.recognized(&text, scene: recognition.scene, stableAfter: settings.stableAfter)
        answer(
            FrameResult(
                frameID: frame.frameID, status: .recognized, text: text, timing: timing, changes: changes,
                quality: recognition.quality, orientation: recognition.orientation, stable: stable,
                sceneDifference: recognition.scene.sceneDifference, motion: recognition.scene.motion))
    }

    /// An engine decided a frame of this session was not worth reading.
    func skipped(_ frame: Frame, _ skip: FrameOutcome.Skip, settings: SessionSettings, timing: Timing) {
        let (text, stable) = scene.skipped(skip.reason, scene: skip.scene, stableAfter: settings.stableAfter)
        answer(
            FrameResult(
                frameID: frame.frameID, status: .skipped, text: text, timing: timing, changes: Changes(),
                orientation: skip.orientation, skipReason: skip.reason, stable: stable,
                sceneDifference: skip.scene.sceneDifference, motion: skip.scene.motion))
    }

    /// The deadlines a client must keep (against slow or silent clients holding a connection):
    /// StartSession within `firstMessage` of connecting; each message, once begun, whole
    /// within `message`; and, with no frame outstanding, some message (a Ping will do) within
    /// `idle`. Past one, the stream fails with DEADLINE_EXCEEDED.
    func checkDeadlines(firstMessage: Duration, message: Duration, idle: Duration, now: ContinuousClock.Instant) {
        guard !isClosed, !closeAfterFlush else { return }
        var reason: String?
        if case .awaitingStart = machine.state, now - connectedAt >= firstMessage {
            reason = "no StartSession within \(firstMessage) of connecting"
        } else if let partialSince, now - partialSince >= message {
            reason = "a message took longer than \(message) to arrive"
        } else if case .active = machine.state, machine.outstandingFrames == 0, now - lastMessageAt >= idle {
            reason = "no message for \(idle)"
        }
        guard let reason else { return }
        server.log(.info, "closing a slow or silent client", ["session": sessionID, "reason": reason])
        perform(machine.streamFailed(LegibleError(.deadlineExceeded, reason)))
    }

    /// Closes the connection when its client has not read its results for `limit`: its
    /// queue would only grow, and the server stopped reading from it long ago.
    func checkWriteStall(limit: Duration, now: ContinuousClock.Instant) {
        guard !isClosed, let stalledSince, now - stalledSince >= limit else { return }
        server.log(
            .info, "closing a client that does not read", ["session": sessionID, "queued": String(pendingWriteBytes)])
        // Whatever is queued will not be read; the error goes out in its place, if it can.
        writeBuffer.removeAll()
        writeOffset = 0
        perform(
            machine.streamFailed(
                LegibleError(.resourceExhausted, "the client did not read its results for \(limit); closing the stream")
            ))
        if !isClosed { disconnect(reason: "write stall") }
    }

    /// The server is shutting down.
    func shutdown() {
        // Frames the client sent before the server began to stop may still sit in the socket:
        // read them first, so that they are answered rather than lost with the connection.
        if !isClosed && !readingPaused && !peerFinishedSending { readAvailable() }
        guard !isClosed else { return }
        perform(machine.shutdown())
    }

    private func enqueue(_ message: ServerMessage) {
        MessageFraming.appendFrame(ProtobufCodec.encode(message), to: &writeBuffer)
        flush()
    }

    private var pendingWriteBytes: Int { writeBuffer.count - writeOffset }

    private func flush() {
        guard !isClosed else { return }
        while pendingWriteBytes > 0 {
            let result = writeBuffer.withUnsafeBytes { raw in
                Result { () throws(LegibleError) -> Int in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[writeOffset...]))
                }
            }
            guard case .success(let sent) = result else {
                disconnect(reason: "write error")
                return
            }
            if sent == 0 { break }
            server.metrics.bytes(sent: sent)
            writeOffset += sent
        }
        if pendingWriteBytes == 0 {
            writeBuffer.removeAll(keepingCapacity: writeBuffer.capacity <= Connection.readChunk * 4)
            writeOffset = 0
            if closeAfterFlush {
                finishClose()
                return
            }
        } else if writeOffset > writeLowWater {
            writeBuffer.removeFirst(writeOffset)
            writeOffset = 0
        }
        let shouldPause = pendingWriteBytes > writeHighWater
        if shouldPause != readingPaused && (shouldPause || pendingWriteBytes < writeLowWater) {
            readingPaused = shouldPause
        }
        if readingPaused {
            if stalledSince == nil { stalledSince = ContinuousClock.now }
        } else {
            stalledSince = nil
        }
        server.loop.modify(
            socket.descriptor, readable: !readingPaused && !peerFinishedSending && !closeAfterFlush,
            writable: pendingWriteBytes > 0)
    }

    /// Everything is written: half-close so the client reads end of stream, then let go.
    private func finishClose() {
        socket.shutdownWrite()
        close()
    }

    /// The client is gone: nothing more can be sent; its pending frame is forgotten and a
    /// recognition in flight finishes for nobody.
    private func disconnect(reason: String) {
        guard !isClosed else { return }
        server.log(.debug, "disconnect", ["session": sessionID, "reason": reason])
        machine.disconnected()
        close()
    }

    /// Stops counting this session against `--max-sessions` and in the sessions gauge.
    private func endSession() {
        guard admitted else { return }
        admitted = false
        server.sessionEnded()
    }

    private func close() {
        guard !isClosed else { return }
        isClosed = true
        endSession()
        server.loop.unregister(socket.descriptor)
        // Bookkeeping (gauges, scheduler) before the descriptor goes, so that whoever sees the
        // socket closed also sees the connection gone from /metrics.
        server.connectionClosed(self)
        socket.close()
    }
}
