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
    let script: Script
    private let socket: Socket
    private let loop: EventLoop
    private unowned let delegate: any LoadSessionDelegate
    private(set) var ledger: SessionLedger
    private(set) var state = State.starting
    private var deframer = MessageDeframer(maxMessageBytes: 64 << 20)
    /// Framed messages waiting for the socket; `frame` is the frame index of a Frame message.
    private var outgoing: [(bytes: [UInt8], frame: Int?)] = []
    /// Bytes of `outgoing.first` already written.
    private var writeOffset = 0
    private var queuedFrames = 0
    /// Frames a session may hold unsent: the one being written and one more.
    static let maxQueuedFrames = 2

    init(index: Int, script: Script, socket: Socket, loop: EventLoop, delegate: any LoadSessionDelegate) {
        self.index = index
        self.script = script
        self.socket = socket
        self.loop = loop
        self.delegate = delegate
        self.ledger = SessionLedger(session: index, script: script.description)
    }

    /// Registers with the loop and sends StartSession.
    func start(_ message: StartSession) throws(LegibleError) {
        try socket.setNonBlocking()
        try loop.register(socket.descriptor, handler: self)
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
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while state != .closed {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(LegibleError) -> Int? in try socket.receive(into: buffer) }
            }
            switch result {
            case .failure(let error):
                close(error: "read failed: \(error.message)")
                return
            case .success(nil):
                return
            case .success(0):
                close(error: ledger.serverSummary == nil ? "the server closed the stream before its summary" : nil)
                return
            case .success(let count?):
                let now = delegate.now()
                deframer.append(chunk[0..<count])
                drain(at: now)
            }
        }
    }

    private func drain(at now: Nanoseconds) {
        while state != .closed {
            let message: ServerMessage
            do throws(LegibleError) {
                guard let payload = try deframer.next() else { return }
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
            ledger.answer(frameID: result.frameID, answer, at: now, serverMicros: result.timing?.totalMicros)
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
        outgoing.append((MessageFraming.frame(ProtobufCodec.encode(message)), frame))
        flush()
    }

    private func flush() {
        while state != .closed, let first = outgoing.first {
            let result = first.bytes.withUnsafeBytes { raw in
                Result { () throws(LegibleError) -> Int in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[writeOffset...]))
                }
            }
            guard case .success(let sent) = result else {
                close(error: "the server stopped reading (write failed)")
                return
            }
            if sent == 0 { break }
            writeOffset += sent
            if writeOffset == first.bytes.count {
                if let frame = first.frame {
                    ledger.sent(frame, at: delegate.now())
                    queuedFrames -= 1
                }
                outgoing.removeFirst()
                writeOffset = 0
            }
        }
        if state != .closed {
            loop.modify(socket.descriptor, readable: true, writable: !outgoing.isEmpty)
        }
    }

    private func close(error: String?) {
        guard state != .closed else { return }
        let wasStarting = state == .starting
        state = .closed
        if let error, ledger.error == nil { ledger.error = error }
        ledger.close()
        outgoing.removeAll()
        queuedFrames = 0
        loop.unregister(socket.descriptor)
        socket.close()
        if wasStarting { delegate.sessionStarted(self) }
        delegate.sessionClosed(self)
    }
}
