internal import Glibc
public import LegibleCore
internal import LegibleDetection
public import LegibleEngine
internal import LegibleReading
internal import LegibleTesseract
public import LegibleWire

/// Everything `legibled` is configured with.
public struct ServerConfiguration: Sendable {
    public var listen: [ServerAddress] = ServerAddress.defaults
    /// File mode of unix socket files.
    public var socketMode: UInt32 = 0o600
    public var tessdata: String = TesseractModels.defaultTessdata
    /// Recognitions running at once across all scripts.
    public var workers: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    public var replicasPerScript: Int = 1
    public var maxMessageBytes: Int = 16 << 20
    /// Decoded pixels allowed per frame (a decompression-bomb cap).
    public var maxPixels: Int = 16_777_216
    /// A frame of 1 MP or more read by Tesseract's page layout is refused as noise above this
    /// share of differing neighbouring pixels (`NoiseGate`); 1 never.
    public var maxNoise: Double = NoiseGate.defaultMaximumShare
    /// The model each script reads (`--model SCRIPT=NAME`).
    public var models = ModelSelection()
    /// An engine idle this long is unloaded; 0 keeps engines loaded.
    public var engineIdleSeconds: Int = 300
    /// A recognition running longer fails with DEADLINE_EXCEEDED; 0 is no limit. The default
    /// is about 4× the slowest 720p frame measured (24 lines of small print at ACCURATE,
    /// 2.0–2.5 s) and 50× an ordinary one (~0.2 s; `bench/frame_budget.py`): one client's frame
    /// cannot hold an engine for long, and only pages far denser than a camera sees (a
    /// 4000×3000 page of 14 px print took 140 s; `bench/noise_share.py --answer-flags
    /// "--frame-deadline-ms 0"`) need more.
    public var frameDeadlineMillis: Int = 10_000
    /// Sessions at once; StartSession past it is answered UNAVAILABLE.
    public var maxSessions: Int = 4096
    /// Open connections at once (sessions or not); past it a new one gets a fatal
    /// RESOURCE_EXHAUSTED and is closed.
    public var maxConnections: Int = 8192
    /// Connections whose session has not started (no StartSession accepted yet) at once; the
    /// oldest of them is closed to make room for a newcomer, here and at the other limits.
    public var maxUnstartedConnections: Int = 1024
    /// Bytes of partial messages held across connections beyond 2 MiB each (see
    /// `PartialMessagePool`): past it the largest holders are not read.
    public var maxBufferedBytes: Int = 256 * 1024 * 1024
    /// Open connections from one peer (a uid on a Unix socket, an address on TCP).
    public var maxConnectionsPerPeer: Int = 2048
    /// StartSession must arrive within this of connecting.
    public var firstMessageSeconds: Int = 10
    /// A message, once its first byte arrived, must be whole within this.
    public var messageSeconds: Int = 30
    /// A session with no frame outstanding must send something (a Ping will do) this often.
    public var idleSeconds: Int = 300
    /// Tokens a session must bring in StartSession.auth_token (`--auth-token-file`).
    public var accessTokens: AccessTokens = .none
    /// Group of unix socket files (`--socket-group`); nil leaves the creator's.
    public var socketGroup: String?
    /// Listen on a non-loopback TCP address without tokens (`--allow-unauthenticated-remote`).
    public var allowUnauthenticatedRemote = false
    /// TLS on every TCP listener, for both protocols (`--tls-cert`, `--tls-key`, and with
    /// `--tls-client-ca` mutual TLS); nil: cleartext. Unix sockets stay cleartext.
    public var tls: TLSFiles?
    /// Serve /metrics on a non-loopback TCP address (`--allow-remote-metrics`).
    public var allowRemoteMetrics = false
    /// Result bytes queued per connection before it stops reading from its client.
    public var maxWriteQueueBytes: Int = 4 << 20
    /// A connection whose client has not read its results for this long is closed.
    public var writeStallSeconds: Int = 10
    /// The server's clock, as time since it started, for the scheduler and the sessions'
    /// deadlines; nil: the real one. Tests pass a manual clock and call `tick` themselves.
    public var clock: (@Sendable () -> Duration)?
    /// Engines with custom words, without the dictionary or with several models, at once.
    public var maxCustomEngines: Int = 4
    /// Their estimated resident memory together, in MB.
    /// Room for 4 custom `eng` engines in worker processes (~257 MB each as measured, 254 by
    /// `ModelCatalog` before one has loaded) and what they gain reading frames.
    public var customEngineMegabytes: Int = 1280
    /// Serve /metrics, /healthz and /readyz over HTTP here (`--metrics tcp:HOST:PORT`).
    public var metricsAddress: ServerAddress?
    /// How text mode finds the lines it reads (`--detector`).
    public var detector: LineDetectorChoice = .ppOCRv4
    /// The PP-OCRv4 detection model (`--detector-model`).
    public var detectorModel: String = TextDetector.defaultModelPath
    /// The detector's input: frames are scaled so their long side is at most this.
    public var detectorMaxSide: Int = 960
    /// The same for ACCURATE (`--detector-accurate-max-side`).
    public var detectorAccurateMaxSide: Int = 960
    /// Smaller frames are scaled up so that the detector sees this long side (`--detector-min-side`).
    public var detectorMinSide: Int = 640
    /// Scripts whose detected lines PP-OCRv4's recognition model reads instead of Tesseract
    /// (`--pp-ocr-scripts`); whole frames and pages stay Tesseract's.
    public var ppOCRScripts: Set<Script> = [.chinese]
    /// PP-OCRv4's recognition model (`--recognition-model`); its character list lies beside it.
    public var recognitionModel: String = LineTextRecognizer.defaultModelPath
    /// ACCURATE: a detected line the engine reads with a lower confidence is read again by a
    /// second model of the script (`SecondOpinion`), the more confident reading kept (0: never).
    public var secondOpinionBelow: Float = 0.95
    /// FAST asks the same second model about lines read under this confidence
    /// (`--fast-second-opinion-below`; 0: FAST never does).
    public var fastSecondOpinionBelow: Float = 0.8
    /// The PP-OCR model of the second readings of Latin, Chinese and Japanese lines
    /// (`--second-opinion-model`); its character list lies beside it.
    public var secondOpinionModel: String = LineTextRecognizer.secondModelPath
    /// `--accent-check`: `eng`'s lines with a word outside its dictionary are read again by the
    /// second model, which gives back their accents when it reads the same letters.
    public var checksAccents = true
    /// A detected line whose words' mean confidence is lower than its script's floor is not
    /// answered.
    public var minimumLineConfidence = LineConfidenceFloor.default
    /// Makes each engine's recognizer instead of Tesseract, and frames are read whole (no
    /// line detector): a fake for checking load tools (`--calibration-delay-ms`) and for tests.
    /// nil: Tesseract with the detector, PP-OCR and second opinions as configured.
    public var recognizerFactory: RecognizerFactory?
    public var logLevel: Log.Level = .info
    public var logFormat: Log.Format = .text
    /// How to start an engine worker process (`--engine-isolation process`, legibled's
    /// default): each engine's pipeline then runs in a process of its own, so that a fault in
    /// a C library fails one frame and a recognition that will not stop can be killed. nil:
    /// engines run on threads of the server's process (`--engine-isolation none`; and tests
    /// with a `recognizerFactory`, which a worker cannot rebuild).
    public var engineWorkers: WorkerCommand?
    public static let version = "0.2.0"

    public init() {}

    /// Every setting as `legibled --print-config` shows it: the option's name and its
    /// effective value (defaults resolved, e.g. --workers to the number of cores).
    public var effectiveValues: [(option: String, value: String)] {
        func seconds(_ value: Int) -> String { "\(value)" }
        return [
            ("listen", listen.map(\.description).joined(separator: " ")),
            ("socket-mode", "0" + String(socketMode, radix: 8)),
            ("socket-group", socketGroup ?? ""),
            ("auth-token-file", accessTokens.isRequired ? "\(accessTokens.count) token(s)" : ""),
            ("allow-unauthenticated-remote", allowUnauthenticatedRemote ? "true" : "false"),
            ("allow-remote-metrics", allowRemoteMetrics ? "true" : "false"),
            ("tls-cert", tls?.certificateChain ?? ""),
            ("tls-key", tls?.privateKey ?? ""),
            ("tls-client-ca", tls?.clientCA ?? ""),
            ("tessdata", tessdata),
            ("detector", detector.rawValue),
            ("detector-model", detectorModel),
            ("detector-max-side", "\(detectorMaxSide)"),
            ("detector-accurate-max-side", "\(detectorAccurateMaxSide)"),
            ("detector-min-side", "\(detectorMinSide)"),
            (
                "pp-ocr-scripts",
                ppOCRScripts.isEmpty
                    ? "none"
                    : ppOCRScripts.sorted { $0.rawValue < $1.rawValue }.map(\.description)
                        .joined(separator: ",")
            ),
            ("recognition-model", recognitionModel),
            ("second-opinion-below", "\(secondOpinionBelow)"),
            ("fast-second-opinion-below", "\(fastSecondOpinionBelow)"),
            ("second-opinion-model", secondOpinionModel),
            ("accent-check", checksAccents ? "on" : "off"),
            ("min-line-confidence", "\(minimumLineConfidence)"),
            ("workers", "\(workers)"),
            ("replicas-per-script", "\(replicasPerScript)"),
            ("engine-isolation", engineWorkers == nil ? "none" : "process"),
            ("model", Script.allCases.map { "\($0)=\(models.model(for: $0))" }.joined(separator: " ")),
            ("engine-idle-seconds", seconds(engineIdleSeconds)),
            ("frame-deadline-ms", "\(frameDeadlineMillis)"),
            ("max-sessions", "\(maxSessions)"),
            ("max-connections", "\(maxConnections)"),
            ("max-unstarted-connections", "\(maxUnstartedConnections)"),
            ("max-connections-per-peer", "\(maxConnectionsPerPeer)"),
            ("max-buffered-bytes", "\(maxBufferedBytes)"),
            ("first-message-seconds", seconds(firstMessageSeconds)),
            ("message-seconds", seconds(messageSeconds)),
            ("idle-seconds", seconds(idleSeconds)),
            ("max-write-queue-bytes", "\(maxWriteQueueBytes)"),
            ("write-stall-seconds", seconds(writeStallSeconds)),
            ("max-custom-engines", "\(maxCustomEngines)"),
            ("custom-engine-mb", "\(customEngineMegabytes)"),
            ("max-message-bytes", "\(maxMessageBytes)"),
            ("max-pixels", "\(maxPixels)"),
            ("max-noise", "\(maxNoise)"),
            ("metrics", metricsAddress.map(\.description) ?? ""),
            ("log-level", logLevel.name),
            ("log-format", logFormat.rawValue),
        ]
    }

    /// What builds each engine's pipeline, in the server or in an engine worker process.
    public var pipelineSettings: PipelineFactory.Settings {
        PipelineFactory.Settings(
            tessdata: tessdata, maxPixels: maxPixels,
            detector: detector == .ppOCRv4
                ? (
                    detectorModel,
                    TextDetector.Options(
                        maxSide: detectorMaxSide, accurateMaxSide: detectorAccurateMaxSide,
                        minimumLongSide: detectorMinSide)
                ) : nil,
            minimumLineConfidence: minimumLineConfidence, ppOCRScripts: ppOCRScripts,
            recognitionModel: recognitionModel, secondOpinionBelow: secondOpinionBelow,
            fastSecondOpinionBelow: fastSecondOpinionBelow, secondOpinionModel: secondOpinionModel,
            checksAccents: checksAccents, recognizerFactory: recognizerFactory, maximumNoise: maxNoise)
    }

    /// The engine of the default script: loaded at start and kept loaded.
    var defaultKey: EngineKey { EngineKey(models: [models.model(for: .default)]) }
}

/// The PEM files of a server's TLS: read at start and again on SIGHUP.
public struct TLSFiles: Sendable, Hashable {
    /// The server's certificate, then its intermediates (`--tls-cert`).
    public var certificateChain: String
    /// Its private key (`--tls-key`).
    public var privateKey: String
    /// CA certificates that sign the clients' certificates: clients must present one
    /// (`--tls-client-ca`, mutual TLS).
    public var clientCA: String?

    public init(certificateChain: String, privateKey: String, clientCA: String? = nil) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.clientCA = clientCA
    }
}

/// How text mode finds the lines of a frame.
public enum LineDetectorChoice: String, Sendable, CaseIterable {
    /// PP-OCRv4's text detector (OpenVINO): every line is cut out, turned horizontal and read
    /// alone, and the lines are put in reading order.
    case ppOCRv4 = "pp-ocrv4"
    /// Tesseract's own page layout analysis on the whole frame (sparse text).
    case tesseract
}
