public import LegibleCore
public import LegibleWire

/// What a session needs to know about the server it runs in.
public struct SessionConfiguration: Sendable {
    public var sessionID: String
    public var serverVersion: String
    public var limits: ServerLimits
    /// Scripts this server can serve (their default model is installed).
    public var availableScripts: [Script]
    /// Encodings the imaging pipeline decodes; others are answered `UNIMPLEMENTED`.
    public var supportedEncodings: Set<ImageEncoding>
    /// The model each script reads.
    public var models: ModelSelection
    /// The Tesseract models installed on this server; a session needing another fails with
    /// FAILED_PRECONDITION naming its Debian package.
    public var installedModels: Set<String>
    /// The engine pool as SessionStarted reports it.
    public var engines: [EngineInfo]
    /// Tokens a session must bring; none required when empty.
    public var accessTokens: AccessTokens
    /// The server finds lines with a detector and reads each alone (text and document mode),
    /// so a session of several scripts has each line read by its script's engine
    /// (`SessionSettings.lineScripts`) instead of one engine holding every model.
    public var readsLinesByScript: Bool = false
    /// Checks a session's capture goals (names, bounds, patterns that compile), throwing
    /// INVALID_ARGUMENT with the reason; the server gives `CaptureFinder`'s. nil: not checked.
    public var captureGoalCheck: (@Sendable ([CaptureGoal]) throws(LegibleError) -> Void)?

    public init(
        sessionID: String, serverVersion: String, limits: ServerLimits, availableScripts: [Script],
        supportedEncodings: Set<ImageEncoding> = Set(ImageEncoding.allCases), models: ModelSelection = ModelSelection(),
        installedModels: Set<String>? = nil, engines: [EngineInfo] = [], accessTokens: AccessTokens = .none
    ) {
        self.accessTokens = accessTokens
        self.sessionID = sessionID
        self.serverVersion = serverVersion
        self.limits = limits
        self.availableScripts = availableScripts
        self.supportedEncodings = supportedEncodings
        self.models = models
        self.installedModels = installedModels ?? Set(availableScripts.map { models.model(for: $0) })
        self.engines = engines
    }
}

/// One script's engine, as a session that reads its lines script by script names it.
public struct ScriptEngine: Sendable, Hashable, Codable {
    public var script: Script
    public var key: EngineKey

    public init(script: Script, key: EngineKey) {
        self.script = script
        self.key = key
    }
}

/// A session's options once validated: what every one of its frames is recognized with.
public struct SessionSettings: Sendable, Hashable, Codable {
    /// The engine that reads this session's frames.
    public var engineKey: EngineKey
    /// When lines are read script by script (several scripts, or
    /// `automatically_detect_script`, in text mode with the line detector): each candidate
    /// script and its engine, the first being `engineKey`, which detects the lines. Empty when
    /// one engine reads the whole frame.
    public var lineScripts: [ScriptEngine] = []
    /// The scripts asked for (directly or by language hints), first the main one.
    public var scripts: [Script]
    public var request: RecognitionRequest
    /// The session's region of interest (upright pixels), for frames that do not bring one.
    public var regionOfInterest: Rect?
    public var autoOrientation: Bool
    /// Lines lower than this fraction of the upright image's height are left out.
    public var minimumTextHeight: Float
    public var detectEntities: Bool
    /// A pending frame older than this when an engine frees up is dropped.
    public var maxFrameAge: Duration?
    /// Results each line must hold its text for before a result is `stable`.
    public var stableAfter: Int
    public var waitForSteady: Bool
    public var recognizeUnchanged: Bool
    /// What the session is looking for (checked when the session started or was updated).
    public var captureGoals: [CaptureGoal] = []

    public init(
        engineKey: EngineKey, scripts: [Script] = [.latin], request: RecognitionRequest = RecognitionRequest(),
        regionOfInterest: Rect? = nil, autoOrientation: Bool = false, minimumTextHeight: Float = 0,
        detectEntities: Bool = false, maxFrameAge: Duration? = nil,
        stableAfter: Int = SessionSettings.defaultStableAfter,
        waitForSteady: Bool = false, recognizeUnchanged: Bool = false
    ) {
        self.engineKey = engineKey
        self.scripts = scripts
        self.request = request
        self.regionOfInterest = regionOfInterest
        self.autoOrientation = autoOrientation
        self.minimumTextHeight = minimumTextHeight
        self.detectEntities = detectEntities
        self.maxFrameAge = maxFrameAge
        self.stableAfter = stableAfter
        self.waitForSteady = waitForSteady
        self.recognizeUnchanged = recognizeUnchanged
    }

    /// Whether lines are read script by script.
    public var readsLinesByScript: Bool { lineScripts.count > 1 }

    /// `stable_after` when the client leaves it 0.
    public static let defaultStableAfter = 3

    /// The main script: the first asked for.
    public var script: Script { scripts.first ?? .default }
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
        /// No more frames are accepted; waiting for the answers still owed. `shuttingDown`:
        /// the server drains it, not the client's EndSession.
        case draining(SessionSettings, shuttingDown: Bool)
        case closed
    }

    public enum Action: Sendable, Hashable {
        /// Register the session with the scheduler for `settings.engineKey`.
        case register(SessionSettings)
        /// The session's options changed (from the next frame on).
        case update(SessionSettings)
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
    /// The session ended itself on its last capture (`endOnCapture`): a frame arriving after
    /// is told so, not that it came after an EndSession the client never sent.
    private var endedOnCapture = false

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
            return [
                .send(
                    .error(
                        WireError(
                            code: LegibleError.Code.failedPrecondition.rawValue,
                            message: "the session has already started")))
            ]
        case (.active(let settings), .frame(let frame)):
            summary.framesReceived += 1
            if let error = validate(frame) { return answer(failed(frame.frameID, error)) }
            return [.submit(frame, settings)]
        case (.draining(_, let shuttingDown), .frame(let frame)):
            summary.framesReceived += 1
            let error =
                shuttingDown
                ? LegibleError(.unavailable, "the server is shutting down and reads no more frames")
                : endedOnCapture
                    ? LegibleError(
                        .failedPrecondition, "frame sent after the session ended: every capture goal is captured")
                    : LegibleError(.failedPrecondition, "frame sent after EndSession")
            return answer(failed(frame.frameID, error))
        case (.active(let settings), .update(let update)):
            switch resolve(update.options) {
            case .failure(let error):
                // A bad update is refused; the session goes on with the options it had.
                return [.send(.error(WireError(error)))]
            case .success(let newSettings):
                state = .active(newSettings)
                return newSettings == settings ? [] : [.update(newSettings)]
            }
        case (.draining, .update):
            return [.send(.error(WireError(LegibleError(.failedPrecondition, "UpdateSession sent after EndSession"))))]
        case (_, .ping(let nonce)):
            return [.send(.pong(nonce: nonce))]
        case (.active(let settings), .end):
            state = .draining(settings, shuttingDown: false)
            return finishIfDrained()
        case (.draining, .end):
            return []
        }
    }

    /// Every capture goal is captured and the client asked the session to end then: it ends as
    /// on EndSession (the frames still owed are answered, then the summary).
    public mutating func endOnCapture() -> [Action] {
        guard case .active = state else { return [] }
        endedOnCapture = true
        return receive(.end)
    }

    /// A value captured one of the session's goals: the summary lists it.
    public mutating func captured(_ capture: Capture) {
        summary.captures.append(capture)
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
            state = .draining(settings, shuttingDown: true)
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
        // Before anything else is looked at: an unauthenticated client gets no work done.
        if configuration.accessTokens.isRequired && !configuration.accessTokens.accepts(start.authToken) {
            return fail(
                LegibleError(
                    .unauthenticated,
                    start.authToken.isEmpty ? "this server requires an auth_token" : "the auth_token is not valid"))
        }
        guard start.protocolVersion <= legibleProtocolVersion else {
            return fail(
                LegibleError(
                    .failedPrecondition,
                    "protocol version \(start.protocolVersion) is not supported; this server speaks \(legibleProtocolVersion)"
                ))
        }
        switch resolve(start.options) {
        case .failure(let error):
            return fail(error)
        case .success(let settings):
            state = .active(settings)
            let started = SessionStarted(
                sessionID: configuration.sessionID, serverVersion: configuration.serverVersion,
                limits: configuration.limits, availableScripts: configuration.availableScripts,
                engines: configuration.engines)
            return [.register(settings), .send(.started(started))]
        }
    }

    /// Custom words a session may give, and how long each may be.
    /// The largest StartSession a valid session can send (1,000 custom words of 100 bytes,
    /// each with its tag and length, and room for every other option): a transport takes no
    /// bigger message until the session has started, so a stranger's connection holds at most
    /// this much, not `--max-message-bytes`.
    public static let maxStartSessionBytes = maxCustomWords * (maxCustomWordBytes + 3) + 16 * 1024
    public static let maxCustomWords = RecognitionOptions.maxCustomWords
    public static let maxCustomWordBytes = 100
    /// A custom word with the spaces around it that trimming takes off.
    static let maxCustomWordWithSpacesBytes = 4 * maxCustomWordBytes
    public static let maxCandidates: UInt32 = 10

    /// Validates options and resolves the server's defaults.
    private func resolve(_ options: RecognitionOptions) -> Result<SessionSettings, LegibleError> {
        do throws(LegibleError) {
            return .success(try settings(from: options))
        } catch {
            return .failure(error)
        }
    }

    private func settings(from options: RecognitionOptions) throws(LegibleError) -> SessionSettings {
        // "More than": a longer list was cut to one over the limit as it was decoded.
        guard options.scripts.count <= RecognitionOptions.maxScripts else {
            throw LegibleError(
                .invalidArgument,
                "more than \(RecognitionOptions.maxScripts) scripts; at most \(RecognitionOptions.maxScripts)")
        }
        guard options.languageHints.count <= RecognitionOptions.maxLanguageHints else {
            throw LegibleError(
                .invalidArgument,
                "more than \(RecognitionOptions.maxLanguageHints) language hints; at most \(RecognitionOptions.maxLanguageHints)"
            )
        }
        var scripts: [Script] = []
        for value in options.scripts {
            switch value {
            case .known(let script): if !scripts.contains(script) { scripts.append(script) }
            case .unknown(0): continue
            case .unknown(let raw): throw LegibleError(.invalidArgument, "unknown script \(raw)")
            }
        }
        let models = try configuration.models.models(scripts: scripts, languageHints: options.languageHints)
        let missing = models.filter { !configuration.installedModels.contains($0) }
        if !missing.isEmpty {
            let packages = missing.map(ModelCatalog.debianPackage(for:)).joined(separator: ", ")
            throw LegibleError(
                .failedPrecondition,
                "this server has no Tesseract model \(missing.joined(separator: ", ")): install the Debian package \(packages)"
            )
        }
        for hint in options.languageHints {
            let script = try LanguageHint(hint).script
            if !scripts.contains(script) { scripts.append(script) }
        }
        if scripts.isEmpty { scripts = [.default] }
        if let region = options.regionOfInterest, let error = Self.validate(region, of: "the session's") {
            throw error
        }
        guard options.maxCandidates <= Self.maxCandidates else {
            throw LegibleError(
                .invalidArgument, "max_candidates is \(options.maxCandidates); at most \(Self.maxCandidates)")
        }
        guard options.minimumTextHeight >= 0, options.minimumTextHeight <= 1 else {
            throw LegibleError(
                .invalidArgument,
                "minimum_text_height is \(options.minimumTextHeight); it is a fraction of the image height, 0...1")
        }
        guard options.customWords.count <= Self.maxCustomWords else {
            throw LegibleError(
                .invalidArgument, "more than \(Self.maxCustomWords) custom words; at most \(Self.maxCustomWords)")
        }
        for word in options.customWords {
            // The byte count first (O(1)): trimming and the search for a space walk the word's
            // characters, which for a 15 MB word had held the event loop for 4.2 s (`bench/probes/loop_stall.py`).
            let trimmed = word.utf8.count <= Self.maxCustomWordWithSpacesBytes ? word.trimmingWhitespace : ""
            guard !trimmed.isEmpty, trimmed.utf8.count <= Self.maxCustomWordBytes,
                !trimmed.contains(where: { $0.isWhitespace })
            else {
                throw LegibleError(
                    .invalidArgument,
                    "custom word '\(word.prefix(40))' is not one word of at most \(Self.maxCustomWordBytes) bytes")
            }
        }
        let customWords = options.customWords.map(\.trimmingWhitespace)
        let languageCorrection = options.languageCorrection ?? true
        var key = EngineKey(models: models, customWords: customWords, languageCorrection: languageCorrection)
        let request = RecognitionRequest(
            mode: options.mode ?? .text, level: options.level ?? .fast, includeSymbols: options.includeSymbols,
            maxCandidates: Int(options.maxCandidates))
        var lineScripts: [ScriptEngine] = []
        if configuration.readsLinesByScript {
            var pairs = try configuration.models.modelsByScript(scripts: scripts, languageHints: options.languageHints)
            if options.automaticallyDetectScript {
                for script in configuration.availableScripts where !pairs.contains(where: { $0.script == script }) {
                    let model = configuration.models.model(for: script)
                    if configuration.installedModels.contains(model) { pairs.append((script, model)) }
                }
            }
            if pairs.count > 1 {
                lineScripts = pairs.map { pair in
                    ScriptEngine(
                        script: pair.script,
                        key: EngineKey(
                            models: [pair.model], customWords: customWords, languageCorrection: languageCorrection))
                }
                key = lineScripts[0].key
            }
        }
        var settings = SessionSettings(
            engineKey: key, scripts: scripts, request: request, regionOfInterest: options.regionOfInterest,
            autoOrientation: options.autoOrientation, minimumTextHeight: options.minimumTextHeight,
            detectEntities: options.detectEntities,
            maxFrameAge: options.maxFrameAgeMillis > 0 ? .milliseconds(Int(options.maxFrameAgeMillis)) : nil,
            stableAfter: options.stableAfter > 0 ? Int(options.stableAfter) : SessionSettings.defaultStableAfter,
            waitForSteady: options.waitForSteady, recognizeUnchanged: options.recognizeUnchanged)
        settings.lineScripts = lineScripts
        if !options.captureGoals.isEmpty {
            try configuration.captureGoalCheck?(options.captureGoals)
            settings.captureGoals = options.captureGoals
        }
        return settings
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

extension String {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
