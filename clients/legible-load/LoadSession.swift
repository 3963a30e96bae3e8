internal import Glibc
internal import LegibleCore
internal import LegibleLoadCore
internal import LegibleSockets
internal import LegibleWire
internal import LegibleWireProtobuf

/// What a session tells the run.
protocol LoadSessionDelegate: AnyObject {
    /// The server answered StartSession (or refused it: the session is then closed as well).
    func sessionStarted(_ session: LoadSession)
    /// The stream is gone; nothing more will be read or written.
    func sessionClosed(_ session: LoadSession)
    /// Now, in nanoseconds from t0.
    func now() -> Nanoseconds
}

/// One session of a load run: a non-blocking stream to the server on the run's event loop,
/// a small outgoing buffer, and the ledger of its frames. Lives on the loop's thread only.
///
/// ```
///  frameDue ──▶ outgoing (≤ maxQueuedFrames frames + control messages) ──▶ socket ──▶ server
///                 │ full: client_skipped(socket_full)                                │
///  ledger ◀── FrameResult ◀── deframer ◀── socket ◀──────────────────────────────────┘
/// ```
///
/// The bound on the outgoing buffer is what keeps a run honest when the server stops reading:
/// frames pile up in no queue; each frame the session could not hand to the socket is counted
/// with its scheduled time.
final class LoadSession: EventHandler {
    enum State: Equatable {
        /// StartSession sent; waiting for SessionStarted.
        case starting
        case streaming
        /// EndSession queued: answers, then the summary, then the server closes.
        case ending
        case closed
    }

    let index: Int
    let script: SessionScripts
    private let stream: any MessageStream
    private let loop: EventLoop
    private unowned let delegate: any LoadSessionDelegate
    private(set) var ledger: SessionLedger
    private(set) var state = State.starting
    /// Frames enqueued (their frame index is the message's tag) and not yet sent whole.
    private var queuedFrames = 0
    /// Frames a session may hold unsent: the one being written and one more.
    static let maxQueuedFrames = 2

    /// `stream`: the framed protocol or a gRPC call on the session's own socket.
    init(
        index: Int, script: SessionScripts, stream: any MessageStream, loop: EventLoop,
        delegate: any LoadSessionDelegate
    ) {
        self.index = index
        self.script = script
        self.stream = stream
        self.loop = loop
        self.delegate = delegate
        self.ledger = SessionLedger(session: index, script: script.description)
    }

    /// Registers with the loop and sends StartSession.
    func start(_ message: StartSession) throws(LegibleError) {
        try stream.socket.setNonBlocking()
        try loop.register(stream.socket.descriptor, handler: self)
        enqueue(.start(message), frame: nil)
    }

    /// Frame `index` is due now (scheduled at `time`): send it, or count why not.
    func frameDue(_ frameIndex: Int, scheduled time: Nanoseconds, image: EncodedImage) {
        ledger.schedule(frameIndex, at: time)
        guard state == .streaming else {
            ledger.clientSkipped(frameIndex, .sessionClosed)
            return
        }
        guard queuedFrames < LoadSession.maxQueuedFrames else {
            ledger.clientSkipped(frameIndex, .socketFull)
            return
        }
        ledger.queued(frameIndex)
        queuedFrames += 1
        enqueue(.frame(Frame(frameID: UInt64(frameIndex + 1), image: image)), frame: frameIndex)
    }

    /// No more frames: EndSession (the server then answers everything and sends its summary).
    func endSending() {
        guard state == .streaming else { return }
        state = .ending
        enqueue(.end, frame: nil)
    }

    /// The run is over (or never began for this session): let go of the stream.
    func abandon(reason: String) {
        close(error: reason)
    }

    // MARK: Socket events

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        if writable { flush() }
        if readable && state != .closed { readAvailable() }
        if hangup && state != .closed { close(error: "the connection broke") }
    }

    private func readAvailable() {
        while state != .closed {
            let result = Result { () throws(LegibleError) -> FramedStream.ReadResult in try stream.readOnce() }
            switch result {
            case .failure(let error):
                close(error: "read failed: \(error.message)")
                return
            case .success(.wouldBlock):
                return
            case .success(.endOfStream):
                close(error: ledger.serverSummary == nil ? "the server closed the stream before its summary" : nil)
                return
            case .success(.received):
                drain(at: delegate.now())
            }
        }
    }

    private func drain(at now: Nanoseconds) {
        while state != .closed {
            let message: ServerMessage
            do throws(LegibleError) {
                guard let payload = try stream.nextMessage() else { return }
                message = try ProtobufCodec.decodeServerMessage(payload)
            } catch {
                close(error: "unreadable message from the server: \(error.message)")
                return
            }
            handle(message, at: now)
        }
    }

    private func handle(_ message: ServerMessage, at now: Nanoseconds) {
        switch message {
        case .started:
            if state == .starting {
                state = .streaming
                delegate.sessionStarted(self)
            }
        case .result(let result):
            let answer: FrameOutcome.Answer
            switch result.status {
            case .recognized: answer = .recognized
            case .dropped: answer = .dropped
            case .skipped: answer = .skipped
            case .failed:
                let code = result.error?.code ?? 0
                answer = .failed(code: code)
                if ledger.failureMessages[code] == nil { ledger.failureMessages[code] = result.error?.message ?? "" }
            }
            ledger.answer(
                frameID: result.frameID, answer, at: now, serverMicros: result.timing?.totalMicros,
                recognizeMicros: result.timing?.recognizeMicros)
        case .error(let error):
            // A fatal error ends the stream (the server closes it next); a frame's own error
            // comes inside its FrameResult.
            if error.fatal && ledger.error == nil { ledger.error = error.description }
            if state == .starting {
                // Refused before SessionStarted (e.g. UNAVAILABLE at --max-sessions).
                close(error: error.description)
            }
        case .pong:
            break
        case .summary(let summary):
            ledger.serverSummary = ServerSummary(
                received: summary.framesReceived, recognized: summary.framesRecognized, dropped: summary.framesDropped,
                skipped: summary.framesSkipped, failed: summary.framesFailed)
        }
    }

    // MARK: Writing

    private func enqueue(_ message: ClientMessage, frame: Int?) {
        stream.enqueue(ProtobufCodec.encode(message), tag: frame)
        flush()
    }

    private func flush() {
        guard state != .closed else { return }
        do throws(LegibleError) {
            try stream.flush { frame in
                ledger.sent(frame, at: delegate.now())
                queuedFrames -= 1
            }
        } catch {
            close(error: "the server stopped reading (write failed)")
            return
        }
        loop.modify(stream.socket.descriptor, readable: true, writable: stream.hasQueuedBytes)
    }

    private func close(error: String?) {
        guard state != .closed else { return }
        let wasStarting = state == .starting
        state = .closed
        if let error, ledger.error == nil { ledger.error = error }
        ledger.close()
        stream.discardQueue()
        queuedFrames = 0
        loop.unregister(stream.socket.descriptor)
        stream.socket.close()
        if wasStarting { delegate.sessionStarted(self) }
        delegate.sessionClosed(self)
    }
}
