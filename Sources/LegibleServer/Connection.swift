internal import Glibc
internal import LegibleCore
internal import LegibleSessions
internal import LegibleSockets
internal import LegibleWire
internal import LegibleWireProtobuf

/// One client stream: the transport side of one `Session`. Reads messages without blocking,
/// hands them to the session, and carries out what the session says (send, submit, close).
/// Lives on the event loop's thread only.
///
/// Backpressure: when more than `--max-write-queue-bytes` wait to be written (a client that
/// sends but does not read), the connection stops reading until the queue drains below a
/// quarter of that (its stream's watermarks); with one pending frame per session that bounds
/// its memory.
final class Connection: EventHandler {
    let serial: UInt64
    let peer: String
    private unowned let server: Server
    private(set) var session: Session
    private let stream: FramedStream
    private var closeAfterFlush = false
    private var readingPaused = false
    private var peerFinishedSending = false
    private(set) var isClosed = false
    /// Counted against `--max-sessions` (StartSession was accepted).
    private(set) var admitted = false

    init(serial: UInt64, socket: Socket, peer: String, server: Server, session: Session, maxMessageBytes: Int) {
        self.serial = serial
        self.peer = peer
        self.server = server
        self.session = session
        let queueLimit = server.configuration.maxWriteQueueBytes
        self.stream = FramedStream(
            socket: socket, maxMessageBytes: maxMessageBytes,
            watermarks: WriteWatermarks(high: queueLimit, low: queueLimit / 4))
    }

    var socket: Socket { stream.socket }

    var sessionID: String { session.sessionID }

    // MARK: Events from the loop

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        if writable { flush() }
        if readable && !isClosed && !readingPaused && !peerFinishedSending { readAvailable() }
        // Both directions gone (EPOLLHUP/EPOLLERR): nobody is left to answer.
        if hangup && !isClosed { disconnect(reason: "hang-up") }
    }

    private func readAvailable() {
        // A bounded number of reads per wake-up keeps one busy client from starving the rest.
        for _ in 0..<8 {
            switch Result(catching: { () throws(LegibleError) -> FramedStream.ReadResult in try stream.readOnce() }) {
            case .failure:
                disconnect(reason: "read error")
                return
            case .success(.wouldBlock):
                return
            case .success(.endOfStream):
                endOfInput()
                return
            case .success(.received(let count)):
                server.metrics.bytes(received: count)
                drainMessages()
                session.bytesArrived(inMessage: !stream.isAtMessageBoundary, now: server.now)
                if isClosed || readingPaused || closeAfterFlush { return }
            }
        }
    }

    private func drainMessages() {
        while !isClosed && !closeAfterFlush {
            let payload: [UInt8]
            do throws(LegibleError) {
                guard let next = try stream.nextMessage() else { return }
                payload = next
            } catch {
                server.log(
                    .info, "stream failed", ["session": sessionID, "code": error.code.name, "reason": error.message])
                perform(session.streamFailed(error))
                return
            }
            do throws(LegibleError) {
                let message = try ProtobufCodec.decodeClientMessage(payload)
                if case .frame = message { server.metrics.frameReceived(script: session.mainScript) }
                perform(session.received(message, now: server.now))
            } catch {
                perform(session.streamFailed(error))
            }
        }
    }

    /// The client finished sending. After EndSession that is a half-close and the answers
    /// still go out; before it, the client has gone away.
    private func endOfInput() {
        peerFinishedSending = true
        if case .draining = session.state {
            server.loop.modify(socket.descriptor, readable: false, writable: stream.hasQueuedBytes)
        } else if !closeAfterFlush {
            if !stream.isAtMessageBoundary {
                server.log(.info, "client disconnected mid-message", ["session": sessionID])
            }
            disconnect(reason: "client closed the stream")
        }
    }

    // MARK: Actions

    /// Carries out what the session decided, in its order.
    func perform(_ actions: [Session.Action]) {
        // The session closes in the same batch as its last message (the summary or a fatal
        // error): it leaves the gauges before that message is written, so a client that has
        // read it and then reads /metrics finds the session gone.
        if actions.contains(where: { if case .close = $0 { true } else { false } }) { endSession() }
        for action in actions {
            guard !isClosed else { return }
            switch action {
            case .register(let settings):
                guard server.admit(self) else {
                    // Past --max-sessions: refused at once, before SessionStarted.
                    perform(
                        session.streamFailed(
                            LegibleError(.unavailable, "the server is at its limit of sessions; try again later")))
                    return
                }
                admitted = true
                server.register(self, settings: settings)
            case .update(let settings):
                server.update(self, settings: settings)
            case .send(let message, let dropped):
                if case .result(let result) = message {
                    server.metrics.answered(result, script: session.mainScript, droppedTooOld: dropped == .tooOld)
                } else if case .error(let error) = message, error.code == LegibleError.Code.unauthenticated.rawValue {
                    server.metrics.refusedSession(reason: "unauthenticated")
                }
                stream.enqueue(ProtobufCodec.encode(message))
                flush()
            case .submit(let frame, let settings, let arrivedAt):
                server.submit(frame, settings: settings, arrivedAt: arrivedAt, from: self)
            case .close:
                closeAfterFlush = true
                flush()
            case .discardQueue:
                server.log(
                    .debug, "discarding unread results", ["session": sessionID, "queued": String(stream.queuedBytes)])
                stream.discardQueue()
            case .disconnect(let reason):
                disconnect(reason: reason)
            case .log(let message, let reason):
                server.log(.info, message, ["session": sessionID, "reason": reason])
            }
        }
    }

    // MARK: Events from the server

    /// An engine answered a frame of this session.
    func engineAnswered(_ answer: EngineAnswer, frame: Frame, settings: SessionSettings, timing: Timing) {
        perform(session.engineAnswered(answer, frame: frame, settings: settings, timing: timing))
    }

    /// The scheduler dropped a frame of this session unread.
    func dropped(_ frame: Frame, reason: Session.DropReason, timing: Timing) {
        perform(session.frameDropped(frame, reason: reason, timing: timing))
    }

    /// The server's clock moved on: the session checks its deadlines.
    func tick(now: Duration) {
        guard !isClosed else { return }
        perform(session.tick(now: now))
    }

    /// The server is shutting down.
    func shutdown() {
        // Frames the client sent before the server began to stop may still sit in the socket:
        // read them first, so that they are answered rather than lost with the connection.
        if !isClosed && !readingPaused && !peerFinishedSending { readAvailable() }
        guard !isClosed else { return }
        perform(session.shutdown())
    }

    private func flush() {
        guard !isClosed else { return }
        do throws(LegibleError) {
            let sent = try stream.flush()
            if sent > 0 { server.metrics.bytes(sent: sent) }
        } catch {
            disconnect(reason: "write error")
            return
        }
        if !stream.hasQueuedBytes && closeAfterFlush {
            finishClose()
            return
        }
        readingPaused = stream.isBackedUp
        session.writeQueue(backedUp: readingPaused, now: server.now)
        server.loop.modify(
            socket.descriptor, readable: !readingPaused && !peerFinishedSending && !closeAfterFlush,
            writable: stream.hasQueuedBytes)
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
        session.disconnected()
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
