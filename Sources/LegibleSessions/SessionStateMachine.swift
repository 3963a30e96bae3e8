public import LegibleCore
public import LegibleWire

/// What a session needs to know about the server it runs in.
public struct SessionConfiguration: Sendable {
    public var sessionID: String
    public var serverVersion: String
    public var limits: ServerLimits
    /// Scripts with an engine on this server.
    public var availableScripts: [Script]
    /// Encodings the imaging pipeline decodes; others are answered `UNIMPLEMENTED`.
    public var supportedEncodings: Set<ImageEncoding>

    public init(
        sessionID: String, serverVersion: String, limits: ServerLimits, availableScripts: [Script],
        supportedEncodings: Set<ImageEncoding> = Set(ImageEncoding.allCases)
    ) {
        self.sessionID = sessionID
        self.serverVersion = serverVersion
        self.limits = limits
        self.availableScripts = availableScripts
        self.supportedEncodings = supportedEncodings
    }
}

/// A session's options once validated: what every one of its frames is recognized with.
public struct SessionSettings: Sendable, Hashable {
    public var script: Script
    public var request: RecognitionRequest
    /// The session's region of interest (upright pixels), for frames that do not bring one.
    public var regionOfInterest: Rect?
    public var autoOrientation: Bool

    public init(script: Script, request: RecognitionRequest, regionOfInterest: Rect? = nil, autoOrientation: Bool = false) {
        self.script = script
        self.request = request
        self.regionOfInterest = regionOfInterest
        self.autoOrientation = autoOrientation
    }
}

/// The life of one session, from `StartSession` to `SessionSummary`, as pure state.
///
/// ```
///  awaitingStart ──StartSession──▶ active ──EndSession / shutdown──▶ draining ──last answer──▶ closed
///        │                            │                                                      ▲
///        └── anything else: fatal ────┴── fatal error ───────────────────────────────────────┘
/// ```
///
/// Every event returns the actions the connection must take, in order; the machine does no
/// I/O, so it is tested without sockets. It counts every frame received and every answer, so
/// that each `Frame` gets exactly one `FrameResult` and the summary goes out only after the last.
public struct SessionStateMachine {
    public enum State: Sendable, Hashable {
        case awaitingStart
        case active(SessionSettings)
        /// No more frames are accepted; waiting for the answers still owed.
        case draining(SessionSettings)
        case closed
    }

    public enum Action: Sendable, Hashable {
        /// Register the session with the scheduler for `settings.script`.
        case register(SessionSettings)
        /// Send this message.
        case send(ServerMessage)
        /// Schedule this frame for recognition (it is validated, not decoded).
        case submit(Frame, SessionSettings)
        /// Close the stream once everything queued before it is written.
        case close
    }

    public let configuration: SessionConfiguration
    public private(set) var state: State = .awaitingStart
    public private(set) var summary = SessionSummary()

    public init(configuration: SessionConfiguration) {
        self.configuration = configuration
    }

    /// Frames received and not yet answered.
    public var outstandingFrames: UInt64 { summary.framesReceived - summary.framesAnswered }

    public var isClosed: Bool { state == .closed }

    // MARK: Events

    public mutating func receive(_ message: ClientMessage) -> [Action] {
        switch (state, message) {
        case (.closed, _):
            return []
        case (.awaitingStart, .start(let start)):
            return begin(start)
        case (.awaitingStart, _):
            return fail(LegibleError(.failedPrecondition, "the first message of a stream must be StartSession"))
        case (.active, .start), (.draining, .start):
            return [.send(.error(WireError(code: LegibleError.Code.failedPrecondition.rawValue, message: "the session has already started")))]
        case (.active(let settings), .frame(let frame)):
            summary.framesReceived += 1
            if let error = validate(frame) { return answer(failed(frame.frameID, error)) }
            return [.submit(frame, settings)]
        case (.draining, .frame(let frame)):
            summary.framesReceived += 1
            return answer(failed(frame.frameID, LegibleError(.failedPrecondition, "frame sent after EndSession")))
        case (.active(let settings), .update(let update)):
            switch resolve(update.options) {
            case .failure(let error):
                return [.send(.error(WireError(error)))]
            case .success(let newSettings) where newSettings.script != settings.script:
                return [.send(.error(WireError(LegibleError(.failedPrecondition, "a session's script cannot change; start a new session"))))]
            case .success(let newSettings):
                state = .active(newSettings)
                return []
            }
        case (.draining, .update):
            return [.send(.error(WireError(LegibleError(.failedPrecondition, "UpdateSession sent after EndSession"))))]
        case (_, .ping(let nonce)):
            return [.send(.pong(nonce: nonce))]
        case (.active(let settings), .end):
            state = .draining(settings)
            return finishIfDrained()
        case (.draining, .end):
            return []
        }
    }

    /// A frame of this session has its answer (recognized, dropped, skipped or failed).
    public mutating func frameAnswered(_ result: FrameResult) -> [Action] {
        guard !isClosed else { return [] }
        return answer(result)
    }

    /// The server is shutting down: answer what was received, then summarise and close.
    public mutating func shutdown() -> [Action] {
        switch state {
        case .awaitingStart:
            return fail(LegibleError(.unavailable, "the server is shutting down"))
        case .active(let settings):
            state = .draining(settings)
            return finishIfDrained()
        case .draining, .closed:
            return []
        }
    }

    /// The stream broke (bad framing, bytes that are not a message): a fatal error.
    public mutating func streamFailed(_ error: LegibleError) -> [Action] {
        guard !isClosed else { return [] }
        return fail(error)
    }

    /// The client went away; nothing more is sent.
    public mutating func disconnected() {
        state = .closed
    }

    // MARK: Helpers

    private mutating func begin(_ start: StartSession) -> [Action] {
        guard start.protocolVersion <= legibleProtocolVersion else {
            return fail(
                LegibleError(
                    .failedPrecondition,
                    "protocol version \(start.protocolVersion) is not supported; this server speaks \(legibleProtocolVersion)"))
        }
        switch resolve(start.options) {
        case .failure(let error):
            return fail(error)
        case .success(let settings):
            state = .active(settings)
            let started = SessionStarted(
                sessionID: configuration.sessionID, serverVersion: configuration.serverVersion,
                limits: configuration.limits, availableScripts: configuration.availableScripts)
            return [.register(settings), .send(.started(started))]
        }
    }

    /// Validates options and resolves the server's defaults.
    private func resolve(_ options: RecognitionOptions) -> Result<SessionSettings, LegibleError> {
        var scripts: [Script] = []
        for value in options.scripts {
            switch value {
            case .known(let script): scripts.append(script)
            case .unknown(0): continue
            case .unknown(let raw): return .failure(LegibleError(.invalidArgument, "unknown script \(raw)"))
            }
        }
        guard scripts.count <= 1 else {
            return .failure(LegibleError(.unimplemented, "a session reads one script; several per session are not supported yet"))
        }
        let script = scripts.first ?? .default
        guard configuration.availableScripts.contains(script) else {
            return .failure(
                LegibleError(
                    .failedPrecondition,
                    "no model for script \(script) on this server: install the Debian package \(script.debianPackage)"))
        }
        if let region = options.regionOfInterest, let error = Self.validate(region, of: "the session's") {
            return .failure(error)
        }
        let request = RecognitionRequest(
            mode: options.mode ?? .text, level: options.level ?? .fast, includeSymbols: options.includeSymbols)
        return .success(
            SessionSettings(
                script: script, request: request, regionOfInterest: options.regionOfInterest,
                autoOrientation: options.autoOrientation))
    }

    /// An empty rectangle can never hold text; whether it meets the image is known only after
    /// decoding, so the engine checks that.
    private static func validate(_ region: Rect, of owner: String) -> LegibleError? {
        guard region.isEmpty else { return nil }
        return LegibleError(
            .invalidArgument, "\(owner) region of interest \(region) is empty: width and height must be above 0")
    }

    /// Checks what can be checked without decoding; the decoder checks the rest.
    private func validate(_ frame: Frame) -> LegibleError? {
        guard let encodingValue = frame.encoding else {
            return LegibleError(.invalidArgument, "the frame's image has no encoding")
        }
        guard let encoding = encodingValue.known else {
            return LegibleError(.invalidArgument, "unknown image encoding \(encodingValue.rawValue)")
        }
        guard configuration.supportedEncodings.contains(encoding) else {
            return LegibleError(.unimplemented, "image encoding \(encoding) is not supported yet")
        }
        if frame.data.isEmpty { return LegibleError(.invalidArgument, "empty image: the frame has no data") }
        if let orientationValue = frame.orientation, orientationValue.known == nil {
            return LegibleError(.invalidArgument, "unknown orientation \(orientationValue.rawValue)")
        }
        if let region = frame.regionOfInterest { return Self.validate(region, of: "the frame's") }
        return nil
    }

    private func failed(_ frameID: UInt64, _ error: LegibleError) -> FrameResult {
        FrameResult(frameID: frameID, status: .failed, error: WireError(error, frameID: frameID))
    }

    private mutating func answer(_ result: FrameResult) -> [Action] {
        switch result.status {
        case .recognized: summary.framesRecognized += 1
        case .dropped: summary.framesDropped += 1
        case .skipped: summary.framesSkipped += 1
        case .failed: summary.framesFailed += 1
        }
        precondition(summary.framesAnswered <= summary.framesReceived, "a frame was answered twice")
        return [.send(.result(result))] + finishIfDrained()
    }

    private mutating func finishIfDrained() -> [Action] {
        guard case .draining = state, outstandingFrames == 0 else { return [] }
        state = .closed
        return [.send(.summary(summary)), .close]
    }

    private mutating func fail(_ error: LegibleError) -> [Action] {
        state = .closed
        return [.send(.error(WireError(error, fatal: true))), .close]
    }
}
