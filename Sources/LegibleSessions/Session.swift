public import LegibleCore
public import LegibleWire

/// What an engine made of one frame of a session (the server's pipeline fills it in on the
/// engine thread; the session turns it into the frame's `FrameResult`).
public enum EngineAnswer: Sendable {
    case recognized(Recognition)
    case skipped(Skip)
    case failed(LegibleError)

    public struct Recognition: Sendable, Codable {
        public var text: RecognizedText
        public var quality: FrameQuality
        public var orientation: AppliedOrientation
        /// decode + orient + crop (+ the EXIF read).
        public var decodeMicros: UInt32
        /// OSD (when asked for) + recognition + the tree walk.
        public var recognizeMicros: UInt32
        public var scene: SceneObservation
        /// The session's capture goals' values in `text` (none without goals).
        public var captureCandidates: [CaptureCandidate]

        public init(
            text: RecognizedText, quality: FrameQuality, orientation: AppliedOrientation, decodeMicros: UInt32,
            recognizeMicros: UInt32, scene: SceneObservation, captureCandidates: [CaptureCandidate] = []
        ) {
            self.captureCandidates = captureCandidates
            self.text = text
            self.quality = quality
            self.orientation = orientation
            self.decodeMicros = decodeMicros
            self.recognizeMicros = recognizeMicros
            self.scene = scene
        }
    }

    public struct Skip: Sendable, Codable {
        public var reason: SkipReason
        public var scene: SceneObservation
        public var orientation: AppliedOrientation
        public var decodeMicros: UInt32

        public init(reason: SkipReason, scene: SceneObservation, orientation: AppliedOrientation, decodeMicros: UInt32)
        {
            self.reason = reason
            self.scene = scene
            self.orientation = orientation
            self.decodeMicros = decodeMicros
        }
    }
}

/// The limits a client's stream must keep (against slow or silent clients holding a
/// connection), past which the session fails it.
public struct ClientDeadlines: Sendable, Hashable {
    /// StartSession within this of connecting.
    public var firstMessage: Duration
    /// Each message, once begun, whole within this.
    public var message: Duration
    /// With no frame outstanding, some message (a Ping will do) within this.
    public var idle: Duration
    /// The client reads what is written to it within this, once its write queue is over the
    /// high watermark.
    public var writeStall: Duration

    public init(firstMessage: Duration, message: Duration, idle: Duration, writeStall: Duration) {
        self.firstMessage = firstMessage
        self.message = message
        self.idle = idle
        self.writeStall = writeStall
    }
}

/// Everything about one session in one place: its state machine (protocol, validation,
/// counts), its scene (line tracker, skip policy, thumbnails), its deadlines and its frames'
/// arrival times. Driven by events — a message received, an engine's answer, a drop, a tick
/// of the caller's clock — and answering with the actions the transport and the scheduler
/// carry out. No sockets, no C, no threads: time is `Duration` since the server started,
/// given with each event, so tests drive it with `ManualClock`.
///
/// ```
///  transport ── received(message) ──▶ Session ── .submit(frame, arrivedAt:) ──▶ scheduler ─▶ engine
///      ▲                                 │ ▲                                                    │
///      └──── .send / .close ◀────────────┘ └─── engineAnswered / frameDropped ◀─────────────────┘
/// ```
public struct Session {
    /// Why a frame was answered DROPPED (metrics label them apart).
    public enum DropReason: Sendable, Hashable {
        /// A newer frame of the session took its place before an engine was free.
        case replaced
        /// It waited longer than the session's `max_frame_age_ms`.
        case tooOld
    }

    public enum Action: Sendable {
        /// Register the session with the scheduler for `settings.engineKey`.
        case register(SessionSettings)
        /// The session's options changed (from the next frame on).
        case update(SessionSettings)
        /// Schedule this frame; it was read off the stream at `arrivedAt` (its Timing starts there).
        case submit(Frame, SessionSettings, arrivedAt: Duration)
        /// Send this message (`dropped`: it answers a frame dropped for that reason).
        case send(ServerMessage, dropped: DropReason? = nil)
        /// Close the stream once everything queued before it is written.
        case close
        /// Forget what is queued for writing: the client will not read it.
        case discardQueue
        /// Close now, whatever is left unwritten.
        case disconnect(reason: String)
        /// Worth a log line: why the session is being closed.
        case log(String, reason: String)
    }

    private var machine: SessionStateMachine
    private var scene = SceneState()
    public let deadlines: ClientDeadlines
    private let connectedAt: Duration
    private var lastMessageAt: Duration
    /// When the message still arriving began (nil between messages).
    private var partialSince: Duration?
    /// Since when the write queue has been over its high watermark (the client is not reading).
    private var stalledSince: Duration?
    /// In a session whose lines are read script by script: the script that read most lines of
    /// the last frame recognized. Its engine reads the next frame first — a camera's next frame
    /// mostly shows the same text — so that a Korean stream with automatic script detection is
    /// not read by the Latin, Chinese, Devanagari and Japanese engines first on every frame.
    private var leadScript: Script?
    /// The engine key the scheduler has this session under (the first line script's).
    private var scheduledKey: EngineKey?
    /// The capture goals' values counted across results.
    private var captures = CaptureTracker(goals: [])

    public init(configuration: SessionConfiguration, deadlines: ClientDeadlines, connectedAt now: Duration) {
        self.machine = SessionStateMachine(configuration: configuration)
        self.deadlines = deadlines
        self.connectedAt = now
        self.lastMessageAt = now
    }

    public var sessionID: String { machine.configuration.sessionID }
    public var state: SessionStateMachine.State { machine.state }
    public var summary: SessionSummary { machine.summary }
    /// Frames received and not yet answered.
    public var outstandingFrames: UInt64 { machine.outstandingFrames }

    /// The session's main script (metric labels; `.default` before StartSession).
    public var mainScript: Script {
        switch machine.state {
        case .active(let settings), .draining(let settings, _): settings.script
        case .awaitingStart, .closed: .default
        }
    }

    /// What an engine needs from this session's past for its next frame.
    public func sceneSnapshot(now: Duration) -> SceneSnapshot { scene.snapshot(now: now) }

    // MARK: Events from the transport

    /// Bytes arrived; `inMessage`: a message is begun and not yet whole.
    public mutating func bytesArrived(inMessage: Bool, now: Duration) {
        if !inMessage {
            partialSince = nil
        } else if partialSince == nil {
            partialSince = now
        }
    }

    /// A whole message, decoded, read off the stream at `now`.
    public mutating func received(_ message: ClientMessage, now: Duration) -> [Action] {
        lastMessageAt = now
        partialSince = nil
        var actions: [Action] = []
        for action in machine.receive(message) {
            switch action {
            case .submit(let frame, let settings):
                let led = Self.settings(settings, ledBy: leadScript)
                if led.engineKey != scheduledKey {
                    // The lead changed: the frame goes to the lead script's engine first.
                    scheduledKey = led.engineKey
                    actions.append(.update(led))
                }
                actions.append(.submit(frame, led, arrivedAt: now))
            case .register(let settings):
                scheduledKey = settings.engineKey
                captures = CaptureTracker(goals: settings.captureGoals)
                actions.append(.register(settings))
            case .update(let settings):
                captures.replaceGoals(with: settings.captureGoals)
                let led = Self.settings(settings, ledBy: leadScript)
                scheduledKey = led.engineKey
                actions.append(.update(led))
            default:
                actions.append(Self.action(action))
            }
        }
        return actions
    }

    /// `settings` with `lead` first among its line scripts (and its engine key that script's).
    static func settings(_ settings: SessionSettings, ledBy lead: Script?) -> SessionSettings {
        guard let lead, let index = settings.lineScripts.firstIndex(where: { $0.script == lead }), index > 0 else {
            return settings
        }
        var led = settings
        let first = led.lineScripts.remove(at: index)
        led.lineScripts.insert(first, at: 0)
        led.engineKey = first.key
        return led
    }

    /// The stream cannot go on (bad framing, a message that does not decode): the error is
    /// sent as fatal and the session closes.
    public mutating func streamFailed(_ error: LegibleError) -> [Action] {
        machine.streamFailed(error).map(Self.action)
    }

    /// The write queue went over its high watermark (`true`) or back under its low one.
    public mutating func writeQueue(backedUp: Bool, now: Duration) {
        if !backedUp {
            stalledSince = nil
        } else if stalledSince == nil {
            stalledSince = now
        }
    }

    /// The client is gone: nothing more can be sent.
    public mutating func disconnected() { machine.disconnected() }

    /// The server is draining: no more frames; the summary goes out after the last answer.
    public mutating func shutdown() -> [Action] { machine.shutdown().map(Self.action) }

    // MARK: Events from the engine side

    /// An engine answered one of this session's frames (`timing` from the scheduler: queue
    /// and total; the decode and recognize times come from `answer`).
    public mutating func engineAnswered(
        _ answer: EngineAnswer, frame: Frame, settings: SessionSettings, timing: Timing
    ) -> [Action] {
        var timing = timing
        let result: FrameResult
        switch answer {
        case .recognized(let recognition):
            timing.decodeMicros = recognition.decodeMicros
            timing.recognizeMicros = recognition.recognizeMicros
            if settings.lineScripts.count > 1 { leadScript = Self.mostLines(in: recognition.text) ?? leadScript }
            var text = recognition.text
            let (changes, stable) = scene.recognized(
                &text, scene: recognition.scene, stableAfter: settings.stableAfter)
            let found = captures.observe(recognition.captureCandidates)
            for capture in found where capture.captured { machine.captured(capture) }
            result = FrameResult(
                frameID: frame.frameID, status: .recognized, text: text, timing: timing, changes: changes,
                quality: recognition.quality, orientation: recognition.orientation, stable: stable,
                sceneDifference: recognition.scene.sceneDifference, motion: recognition.scene.motion, captures: found)
        case .skipped(let skip):
            timing.decodeMicros = skip.decodeMicros
            let (text, stable) = scene.skipped(skip.reason, scene: skip.scene, stableAfter: settings.stableAfter)
            result = FrameResult(
                frameID: frame.frameID, status: .skipped, text: text, timing: timing, changes: Changes(),
                orientation: skip.orientation, skipReason: skip.reason, stable: stable,
                sceneDifference: skip.scene.sceneDifference, motion: skip.scene.motion)
        case .failed(let error):
            result = FrameResult(
                frameID: frame.frameID, status: .failed, timing: timing, error: WireError(error, frameID: frame.frameID)
            )
        }
        var actions = machine.frameAnswered(result)
        if captures.endsSession { actions += machine.endOnCapture() }
        return actions.map(Self.action)
    }

    /// The scheduler dropped one of this session's frames unread.
    public mutating func frameDropped(_ frame: Frame, reason: DropReason, timing: Timing) -> [Action] {
        let result = FrameResult(frameID: frame.frameID, status: .dropped, timing: timing)
        return machine.frameAnswered(result).map { action in
            if case .send(let message) = action { return .send(message, dropped: reason) }
            return Self.action(action)
        }
    }

    // MARK: Time

    /// The caller's clock moved on: a client past one of its deadlines is closed.
    public mutating func tick(now: Duration) -> [Action] {
        if let stalledSince, now - stalledSince >= deadlines.writeStall {
            self.stalledSince = nil
            let reason = "the client did not read its results for \(deadlines.writeStall); closing the stream"
            // Whatever is queued will not be read; the error goes out in its place, if it can.
            return [.log("closing a client that does not read", reason: reason), .discardQueue]
                + machine.streamFailed(LegibleError(.resourceExhausted, reason)).map(Self.action)
                + [.disconnect(reason: "write stall")]
        }
        var reason: String?
        switch machine.state {
        case .closed:
            return []
        case .awaitingStart where now - connectedAt >= deadlines.firstMessage:
            reason = "no StartSession within \(deadlines.firstMessage) of connecting"
        case _ where partialSince.map { now - $0 >= deadlines.message } ?? false:
            reason = "a message took longer than \(deadlines.message) to arrive"
        case .active where machine.outstandingFrames == 0 && now - lastMessageAt >= deadlines.idle:
            reason = "no message for \(deadlines.idle)"
        default:
            break
        }
        guard let reason else { return [] }
        return [.log("closing a slow or silent client", reason: reason)]
            + machine.streamFailed(LegibleError(.deadlineExceeded, reason)).map(Self.action)
    }

    /// The script that read most of `text`'s lines (the first of those tied, in reading order).
    static func mostLines(in text: RecognizedText) -> Script? {
        var counts: [Script: Int] = [:]
        var best: Script?
        for script in text.lines.compactMap(\.script) {
            counts[script, default: 0] += 1
            if best.map({ counts[script]! > counts[$0]! }) ?? true { best = script }
        }
        return best
    }

    private static func action(_ action: SessionStateMachine.Action) -> Action {
        switch action {
        case .register(let settings): .register(settings)
        case .update(let settings): .update(settings)
        case .send(let message): .send(message)
        case .submit: preconditionFailure("only a frame received is submitted (see `received`)")
        case .close: .close
        }
    }
}
