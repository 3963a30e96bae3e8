public import LegibleCore
internal import LegibleSessions
public import LegibleWire

/// The server core's side of one session: holds its `Session`, hears what its stream
/// delivers, and carries out what the session decides — writes and closes through the
/// stream, admission, submissions and updates through the server. Knows nothing of how the
/// stream's bytes travel (`SessionStream`). Lives on the event loop's thread only.
public final class SessionHandler {
    let serial: UInt64
    /// The connection the stream travels on, as the server's admission counts it: the
    /// session's own serial on the framed protocol, the HTTP/2 connection's on gRPC.
    let connectionID: UInt64
    private unowned let server: Server
    private var session: Session
    let stream: any SessionStream
    private(set) var isClosed = false
    /// The session asked its stream to finish (its last message is queued).
    private var finishing = false
    /// Counted against `--max-sessions` (StartSession was accepted).
    private(set) var admitted = false

    init(serial: UInt64, connectionID: UInt64, session: Session, stream: any SessionStream, server: Server) {
        self.serial = serial
        self.connectionID = connectionID
        self.session = session
        self.stream = stream
        self.server = server
    }

    public var sessionID: String { session.sessionID }
    var summary: SessionSummary { session.summary }

    /// What an engine needs from this session's past for its next frame.
    func sceneSnapshot(now: Duration) -> SceneSnapshot { session.sceneSnapshot(now: now) }

    // MARK: Events from the stream

    /// A whole message arrived and decoded.
    public func received(_ message: ClientMessage) {
        guard !isClosed, !finishing else { return }
        if case .frame = message { server.metrics.frameReceived(script: session.mainScript) }
        perform(session.received(message, now: server.now))
    }

    /// What arrived cannot be read (bad framing, a message that does not decode).
    public func failed(_ error: LegibleError) {
        guard !isClosed else { return }
        perform(session.streamFailed(error))
    }

    /// Bytes arrived; `inMessage`: a message is begun and not yet whole (its deadline runs).
    public func bytesArrived(inMessage: Bool) { session.bytesArrived(inMessage: inMessage, now: server.now) }

    /// The stream's write queue went over its high watermark, or back under its low one.
    public func writeQueue(backedUp: Bool) { session.writeQueue(backedUp: backedUp, now: server.now) }

    /// The client finished sending. After EndSession (or while the session's last message
    /// goes out) that is a half-close and the answers still go out: returns true, keep
    /// writing. Before it, the client has gone away: the stream is aborted.
    public func inputEnded(midMessage: Bool) -> Bool {
        if case .draining = session.state { return true }
        if finishing { return true }
        if midMessage { server.log(.info, "client disconnected mid-message", ["session": sessionID]) }
        stream.abort(reason: "client closed the stream")
        return false
    }

    /// The stream is closed (finished, aborted, or lost): nothing more can be sent; the
    /// session's pending frame is forgotten and a recognition in flight finishes for nobody.
    public func closed(reason: String) {
        guard !isClosed else { return }
        isClosed = true
        server.log(.debug, "stream closed", ["session": sessionID, "reason": reason])
        session.disconnected()
        endSession()
        server.sessionClosed(self)
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

    /// The server is draining.
    func shutdown() {
        stream.readArrived()
        guard !isClosed else { return }
        perform(session.shutdown())
    }

    // MARK: Actions

    /// Carries out what the session decided, in its order.
    private func perform(_ actions: [Session.Action]) {
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
                stream.sessionStarted()
                server.register(self, settings: settings)
            case .update(let settings):
                server.update(self, settings: settings)
            case .send(let message, let dropped):
                if case .result(let result) = message {
                    server.metrics.answered(result, script: session.mainScript, droppedTooOld: dropped == .tooOld)
                } else if case .error(let error) = message, error.code == LegibleError.Code.unauthenticated.rawValue {
                    server.metrics.refusedSession(reason: "unauthenticated")
                }
                stream.write(message)
            case .submit(let frame, let settings, let arrivedAt):
                server.submit(frame, settings: settings, arrivedAt: arrivedAt, from: self)
            case .close:
                finishing = true
                stream.finish()
            case .discardQueue:
                server.log(
                    .debug, "discarding unread results", ["session": sessionID, "queued": String(stream.queuedBytes)])
                stream.discardQueuedWrites()
            case .disconnect(let reason):
                stream.abort(reason: reason)
            case .log(let message, let reason):
                server.log(.info, message, ["session": sessionID, "reason": reason])
            }
        }
    }

    /// Stops counting this session against `--max-sessions` and in the sessions gauge.
    private func endSession() {
        guard admitted else { return }
        admitted = false
        server.sessionEnded()
    }
}
