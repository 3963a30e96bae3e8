public import LegibleCore

/// The protocol version this build speaks.
public let legibleProtocolVersion: UInt32 = 1

/// A message from a client (`legible.v1.ClientMessage`).
public enum ClientMessage: Sendable, Hashable {
    case start(StartSession)
    case frame(Frame)
    case update(UpdateSession)
    case ping(nonce: UInt64)
    case end
}

/// A message from the server (`legible.v1.ServerMessage`).
public enum ServerMessage: Sendable, Hashable {
    case started(SessionStarted)
    case result(FrameResult)
    case error(WireError)
    case pong(nonce: UInt64)
    case summary(SessionSummary)
}

/// `legible.v1.RecognitionOptions`. Unset fields take the server's defaults.
///
/// Its lists are bounded (`maxScripts`, `maxLanguageHints`, `maxCustomWords`,
/// `maxCaptureGoals`): a session's validation refuses a longer one, and decoding keeps at most
/// one entry more than the bound of each, so that a message of millions of entries costs what
/// one of a few does and is still refused as too long (a 15 MB list of scripts, converted
/// entry by entry, had held the server's event loop for 2.8 s: `bench/probes/loop_stall.py`).
public struct RecognitionOptions: Sendable, Hashable {
    public static let maxScripts = 16
    public static let maxLanguageHints = 64
    public static let maxCustomWords = 1000
    public static let maxCaptureGoals = CaptureGoal.maxPerSession

    /// Raw wire values so that an unknown script reaches validation instead of vanishing.
    public var scripts: [ScriptValue]
    public var languageHints: [String]
    public var mode: RecognitionMode?
    public var level: RecognitionLevel?
    public var customWords: [String]
    public var regionOfInterest: Rect?
    public var maxCandidates: UInt32
    public var includeSymbols: Bool
    /// Let Tesseract's OSD turn the image further by a quarter turn when it is confident.
    public var autoOrientation: Bool
    /// Tesseract's dictionary; nil (unspecified) is on.
    public var languageCorrection: Bool?
    /// Lines lower than this fraction of the upright image's height are left out; 0 keeps all.
    public var minimumTextHeight: Float
    public var detectEntities: Bool
    /// A pending frame older than this when an engine frees up is dropped; 0 is no limit.
    public var maxFrameAgeMillis: UInt32
    /// Results every line must hold its text for before `FrameResult.stable`; 0 means 3.
    public var stableAfter: UInt32
    /// Skip frames while the camera moves.
    public var waitForSteady: Bool
    /// Read frames that differ too little from the last recognized one, instead of skipping them.
    public var recognizeUnchanged: Bool
    /// Find each detected line's script among the installed ones and read it with that
    /// script's recognizer.
    public var automaticallyDetectScript: Bool
    /// What the session is looking for: values reported in `FrameResult.captures`.
    public var captureGoals: [CaptureGoal]

    public init(
        scripts: [ScriptValue] = [], languageHints: [String] = [], mode: RecognitionMode? = nil,
        level: RecognitionLevel? = nil, customWords: [String] = [], regionOfInterest: Rect? = nil,
        maxCandidates: UInt32 = 0, includeSymbols: Bool = false, autoOrientation: Bool = false,
        languageCorrection: Bool? = nil, minimumTextHeight: Float = 0, detectEntities: Bool = false,
        maxFrameAgeMillis: UInt32 = 0, stableAfter: UInt32 = 0, waitForSteady: Bool = false,
        recognizeUnchanged: Bool = false, automaticallyDetectScript: Bool = false, captureGoals: [CaptureGoal] = []
    ) {
        self.captureGoals = captureGoals
        self.automaticallyDetectScript = automaticallyDetectScript
        self.autoOrientation = autoOrientation
        self.languageCorrection = languageCorrection
        self.minimumTextHeight = minimumTextHeight
        self.detectEntities = detectEntities
        self.maxFrameAgeMillis = maxFrameAgeMillis
        self.stableAfter = stableAfter
        self.waitForSteady = waitForSteady
        self.recognizeUnchanged = recognizeUnchanged
        self.scripts = scripts
        self.languageHints = languageHints
        self.mode = mode
        self.level = level
        self.customWords = customWords
        self.regionOfInterest = regionOfInterest
        self.maxCandidates = maxCandidates
        self.includeSymbols = includeSymbols
    }
}

/// An enum value as it came off the wire: known, or a number this build does not know.
public enum WireEnum<Known: RawRepresentable & Sendable & Hashable>: Sendable, Hashable
where Known.RawValue == Int {
    case known(Known)
    case unknown(Int)

    public init(rawValue: Int) {
        self = Known(rawValue: rawValue).map(WireEnum.known) ?? .unknown(rawValue)
    }

    public var rawValue: Int {
        switch self {
        case .known(let value): value.rawValue
        case .unknown(let raw): raw
        }
    }

    public var known: Known? {
        if case .known(let value) = self { return value }
        return nil
    }
}

/// Coded as its raw number, known or not (engine worker messages).
extension WireEnum: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

public typealias ScriptValue = WireEnum<Script>

/// `legible.v1.StartSession`: must be a stream's first message.
public struct StartSession: Sendable, Hashable {
    public var protocolVersion: UInt32
    public var clientName: String
    public var authToken: String
    public var options: RecognitionOptions

    public init(
        protocolVersion: UInt32 = legibleProtocolVersion, clientName: String = "", authToken: String = "",
        options: RecognitionOptions = RecognitionOptions()
    ) {
        self.protocolVersion = protocolVersion
        self.clientName = clientName
        self.authToken = authToken
        self.options = options
    }
}

/// `legible.v1.UpdateSession`.
public struct UpdateSession: Sendable, Hashable {
    public var options: RecognitionOptions
    public init(options: RecognitionOptions) { self.options = options }
}

/// `legible.v1.Frame`. The image stays encoded until an engine takes it.
public struct Frame: Sendable, Hashable, Codable {
    public var frameID: UInt64
    public var encoding: WireEnum<ImageEncoding>?
    public var data: [UInt8]
    public var width: UInt32
    public var height: UInt32
    public var stride: UInt32
    /// nil for ORIENTATION_UNSPECIFIED.
    public var orientation: WireEnum<Orientation>?
    public var regionOfInterest: Rect?
    public var clientTimestampMicros: UInt64

    public init(
        frameID: UInt64, encoding: WireEnum<ImageEncoding>?, data: [UInt8], width: UInt32 = 0, height: UInt32 = 0,
        stride: UInt32 = 0, orientation: WireEnum<Orientation>? = nil, regionOfInterest: Rect? = nil,
        clientTimestampMicros: UInt64 = 0
    ) {
        self.frameID = frameID
        self.encoding = encoding
        self.data = data
        self.width = width
        self.height = height
        self.stride = stride
        self.orientation = orientation
        self.regionOfInterest = regionOfInterest
        self.clientTimestampMicros = clientTimestampMicros
    }

    /// A frame of a known encoding.
    public init(frameID: UInt64, image: EncodedImage, orientation: Orientation? = nil) {
        self.init(
            frameID: frameID, encoding: .known(image.encoding), data: image.data, width: UInt32(image.width),
            height: UInt32(image.height), stride: UInt32(image.stride), orientation: orientation.map(WireEnum.known))
    }
}

/// `legible.v1.ServerLimits`.
public struct ServerLimits: Sendable, Hashable {
    public var maxMessageBytes: UInt64
    public var pendingFramesPerSession: UInt32
    public var workers: UInt32
    public var replicasPerScript: UInt32
    public var maxSessions: UInt32
    public var frameDeadlineMillis: UInt32

    public init(
        maxMessageBytes: UInt64, pendingFramesPerSession: UInt32, workers: UInt32, replicasPerScript: UInt32,
        maxSessions: UInt32 = 0, frameDeadlineMillis: UInt32 = 0
    ) {
        self.maxSessions = maxSessions
        self.frameDeadlineMillis = frameDeadlineMillis
        self.maxMessageBytes = maxMessageBytes
        self.pendingFramesPerSession = pendingFramesPerSession
        self.workers = workers
        self.replicasPerScript = replicasPerScript
    }
}

/// `legible.v1.SessionStarted`.
public struct SessionStarted: Sendable, Hashable {
    public var sessionID: String
    public var serverVersion: String
    public var protocolVersion: UInt32
    public var limits: ServerLimits
    public var availableScripts: [Script]
    public var engines: [EngineInfo]

    public init(
        sessionID: String, serverVersion: String, protocolVersion: UInt32 = legibleProtocolVersion,
        limits: ServerLimits,
        availableScripts: [Script], engines: [EngineInfo] = []
    ) {
        self.engines = engines
        self.sessionID = sessionID
        self.serverVersion = serverVersion
        self.protocolVersion = protocolVersion
        self.limits = limits
        self.availableScripts = availableScripts
    }
}

/// `legible.v1.EngineInfo`: the engines of one script in the server's pool.
public struct EngineInfo: Sendable, Hashable {
    public var script: Script
    public var model: String
    public var replicas: UInt32
    public var loaded: UInt32
    public init(script: Script, model: String, replicas: UInt32, loaded: UInt32) {
        self.script = script
        self.model = model
        self.replicas = replicas
        self.loaded = loaded
    }
}

/// `legible.v1.SkipReason`: why a frame was answered without being read.
public enum SkipReason: Int, Sendable, Hashable, CaseIterable, Codable {
    /// It differs too little from the last recognized frame.
    case unchanged = 1
    /// The camera is moving (`wait_for_steady`).
    case moving = 2
}

/// `legible.v1.FrameStatus`.
public enum FrameStatus: Int, Sendable, Hashable, CaseIterable {
    case recognized = 1
    case dropped = 2
    case skipped = 3
    case failed = 4
}

/// `legible.v1.Timing`, in microseconds.
public struct Timing: Sendable, Hashable {
    public var clientTimestampMicros: UInt64
    public var queueMicros: UInt32
    public var decodeMicros: UInt32
    public var recognizeMicros: UInt32
    public var totalMicros: UInt32

    public init(
        clientTimestampMicros: UInt64 = 0, queueMicros: UInt32 = 0, decodeMicros: UInt32 = 0,
        recognizeMicros: UInt32 = 0,
        totalMicros: UInt32 = 0
    ) {
        self.clientTimestampMicros = clientTimestampMicros
        self.queueMicros = queueMicros
        self.decodeMicros = decodeMicros
        self.recognizeMicros = recognizeMicros
        self.totalMicros = totalMicros
    }
}

/// `legible.v1.Changes`: track ids since the session's previous result.
public struct Changes: Sendable, Hashable {
    public var added: [UInt64]
    public var changed: [UInt64]
    public var removed: [UInt64]
    public init(added: [UInt64] = [], changed: [UInt64] = [], removed: [UInt64] = []) {
        self.added = added
        self.changed = changed
        self.removed = removed
    }
}

/// `legible.v1.FrameResult`: exactly one per `Frame`.
public struct FrameResult: Sendable, Hashable {
    public var frameID: UInt64
    public var status: FrameStatus
    public var text: RecognizedText?
    public var timing: Timing?
    public var changes: Changes?
    public var quality: FrameQuality?
    public var error: WireError?
    public var orientation: AppliedOrientation?
    public var skipReason: SkipReason?
    /// Every line has held its text for the session's `stableAfter` results.
    public var stable: Bool
    /// Luma thumbnail difference from the last recognized frame, 0…255.
    public var sceneDifference: Float
    /// Luma thumbnail difference from the previous frame read, 0…255.
    public var motion: Float
    /// The capture goals' values read in this frame.
    public var captures: [Capture]

    public init(
        frameID: UInt64, status: FrameStatus, text: RecognizedText? = nil, timing: Timing? = nil,
        changes: Changes? = nil,
        quality: FrameQuality? = nil, error: WireError? = nil, orientation: AppliedOrientation? = nil,
        skipReason: SkipReason? = nil, stable: Bool = false, sceneDifference: Float = 0, motion: Float = 0,
        captures: [Capture] = []
    ) {
        self.captures = captures
        self.skipReason = skipReason
        self.stable = stable
        self.sceneDifference = sceneDifference
        self.motion = motion
        self.quality = quality
        self.orientation = orientation
        self.frameID = frameID
        self.status = status
        self.text = text
        self.timing = timing
        self.changes = changes
        self.error = error
    }
}

/// `legible.v1.Error`: a gRPC status code, a message, the frame it concerns, and whether the
/// stream ends with it.
public struct WireError: Sendable, Hashable, CustomStringConvertible {
    public var code: Int32
    public var message: String
    public var frameID: UInt64
    public var fatal: Bool

    public init(code: Int32, message: String, frameID: UInt64 = 0, fatal: Bool = false) {
        self.code = code
        self.message = message
        self.frameID = frameID
        self.fatal = fatal
    }

    public init(_ error: LegibleError, frameID: UInt64 = 0, fatal: Bool = false) {
        self.init(code: error.code.rawValue, message: error.message, frameID: frameID, fatal: fatal)
    }

    public var legibleError: LegibleError { LegibleError(LegibleError.Code(rawValue: code), message) }

    public var description: String {
        "\(LegibleError.Code(rawValue: code).name): \(message)" + (fatal ? " (fatal)" : "")
    }
}

/// `legible.v1.SessionSummary`.
public struct SessionSummary: Sendable, Hashable {
    public var framesReceived: UInt64
    public var framesRecognized: UInt64
    public var framesDropped: UInt64
    public var framesSkipped: UInt64
    public var framesFailed: UInt64
    /// The values that captured the session's goals, one per goal captured.
    public var captures: [Capture]

    public init(
        framesReceived: UInt64 = 0, framesRecognized: UInt64 = 0, framesDropped: UInt64 = 0, framesSkipped: UInt64 = 0,
        framesFailed: UInt64 = 0, captures: [Capture] = []
    ) {
        self.captures = captures
        self.framesReceived = framesReceived
        self.framesRecognized = framesRecognized
        self.framesDropped = framesDropped
        self.framesSkipped = framesSkipped
        self.framesFailed = framesFailed
    }

    /// Frames answered so far, whatever the status.
    public var framesAnswered: UInt64 { framesRecognized + framesDropped + framesSkipped + framesFailed }
}
