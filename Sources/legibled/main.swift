import Foundation
import Glibc
import LegibleCommandLine
import LegibleCore
import LegibleEngine
import LegibleServer
import LegibleSockets
import LegibleTesting
import LegibleWire

let command = Command(
    name: "legibled",
    abstract: "The Legible text-recognition server for live camera streams.",
    discussion: """
        Listens for streams of camera frames and answers each frame with the text Tesseract reads \
        in it. Stops on SIGTERM or SIGINT after answering every frame received.

        Every listener speaks two protocols, told apart by a connection's first bytes: Legible's \
        framed protocol, and stock gRPC over cleartext HTTP/2 (service legible.v1.Recognizer, \
        grpc.health.v1.Health and server reflection), for clients generated from \
        Protos/legible/v1/legible.proto or tools such as grpcurl.

        Tesseract's OpenMP threads are limited to 1 per engine (OMP_THREAD_LIMIT=1) unless the \
        environment sets another value: one thread per engine is several times faster here.

        Every option can also be set by an environment variable named LEGIBLE_ and the option \
        in capitals with underscores (--max-sessions: LEGIBLE_MAX_SESSIONS; repeatable options \
        take several values separated by spaces; flags 1 or 0). The command line wins.

        Exit codes: 0 stopped by SIGTERM or SIGINT after draining, 1 could not start \
        (a listener, a model), 64 bad usage or a bad setting.
        """,
    options: [
        .value(
            "listen", valueName: "address", help: "Listen on unix:PATH or tcp:HOST:PORT; repeatable.",
            default: "unix:legible.sock and tcp:127.0.0.1:7480", repeatable: true),
        .value("socket-mode", valueName: "octal", help: "File mode of unix socket files.", default: "0600"),
        .value(
            "socket-group", valueName: "name", help: "Group of unix socket files (with --socket-mode 0660).",
            default: "yours"),
        .value(
            "auth-token-file", valueName: "path",
            help:
                "Sessions must send one of the tokens in this file (one per line) as StartSession.auth_token "
                + "(gRPC: authorization: Bearer TOKEN).",
            default: "none required"),
        .flag(
            "allow-unauthenticated-remote",
            help:
                "Listen on a non-loopback TCP address without --auth-token-file or --tls-client-ca (a warning is "
                + "logged)."),
        .value(
            "tls-cert", valueName: "path",
            help:
                "TLS on every TCP listener, for both protocols (ALPN h2 for gRPC): the server's certificate chain, "
                + "PEM. Read again on SIGHUP.",
            default: "cleartext"),
        .value("tls-key", valueName: "path", help: "The private key of --tls-cert, PEM.", default: "none"),
        .value(
            "tls-client-ca", valueName: "path",
            help:
                "Mutual TLS: clients must present a certificate signed by a CA in this PEM file (then a "
                + "non-loopback listener needs no --auth-token-file).",
            default: "none"),
        .flag(
            "allow-remote-metrics",
            help: "Serve --metrics on a non-loopback TCP address; it has no auth (a warning is logged)."),
        .value(
            "tessdata", valueName: "dir", help: "Folder of Tesseract models.",
            default: "$TESSDATA_PREFIX or the Debian path"),
        .value(
            "detector", valueName: "name",
            help:
                "How text mode finds lines: pp-ocrv4 (a neural detector finds each line at any angle; each is read alone, in reading order) or tesseract (Tesseract's own layout analysis of the whole frame).",
            default: "pp-ocrv4"),
        .value(
            "detector-model", valueName: "path",
            help:
                "PP-OCRv4's text detection model (ONNX, or OpenVINO IR). ch_PP-OCRv4_det_int8.xml beside it, the same model in int8, detects in half the time but reads worse (README, Detector).",
            default: "/usr/local/share/legible/models/ch_PP-OCRv4_det_infer.onnx, installed by make deps"),
        .value(
            "detector-max-side", valueName: "px",
            help: "The detector sees frames scaled to at most this long side (a multiple of 32).", default: "960"),
        .value(
            "detector-accurate-max-side", valueName: "px",
            help:
                "The same for LEVEL_ACCURATE (a multiple of 32); a larger input finds smaller and denser text, but 1280 read the corpus's pages and Devanagari signs worse than 960.",
            default: "960"),
        .value(
            "detector-min-side", valueName: "px",
            help:
                "Smaller frames are scaled up so that the detector sees this long side (a word photographed close, a small screenshot); 0 never scales up.",
            default: "640"),
        .value(
            "pp-ocr-scripts", valueName: "list",
            help:
                "Scripts whose detected lines PP-OCRv4's recognition model reads instead of Tesseract (comma-separated, or none). It reads Chinese and Latin; on Chinese lines it read far better than Tesseract (README).",
            default: "chinese"),
        .value(
            "recognition-model", valueName: "path",
            help: "PP-OCRv4's text recognition model (ONNX), its characters in NAME.characters.txt beside it.",
            default: "/usr/local/share/legible/models/ch_PP-OCRv4_rec_infer.onnx, installed by make deps"),
        .value(
            "second-opinion-below", valueName: "0..1",
            help:
                "ACCURATE: a detected line read with a lower confidence is read again by a second model of its script (Latin, Chinese, Japanese: PP-OCRv6's recognizer; Devanagari: hin), the more confident reading kept; 0 turns it off.",
            default: "0.95"),
        .value(
            "fast-second-opinion-below", valueName: "0..1",
            help:
                "FAST asks the same second model about a detected line read with a lower confidence (lines a camera frame reads surely cost nothing more); 0 turns it off for FAST.",
            default: "0.8"),
        .value(
            "second-opinion-model", valueName: "path",
            help:
                "PP-OCRv6's text recognition model (ONNX; Chinese, Japanese, Latin with its accents), the second reader of unsure Latin, Chinese and Japanese lines (ACCURATE's and FAST's); its characters in NAME.characters.txt beside it.",
            default: "/usr/local/share/legible/models/PP-OCRv6_rec_small.onnx, installed by make deps"),
        .value(
            "accent-check", valueName: "on|off",
            help:
                "The default Latin model (eng) has few accents: a line of it with a word outside its dictionary (\"HOPITAL\", \"pequeno\") is read again by the second model, and its reading kept when it has the same letters with accents (\"HÔPITAL\"). English lines rarely ask; FAST and ACCURATE alike.",
            default: "on"),
        .value(
            "min-line-confidence", valueName: "0..1[,script=0..1...]",
            help:
                "With the detector, a line whose words' mean confidence is lower is left out (no invented text); a script named gets its own floor (Tesseract's Devanagari models read camera lines right at lower confidences).",
            default: "0.5,devanagari=0.1"),
        .value(
            "workers", valueName: "n", help: "Recognitions running at once across all scripts.",
            default: "the number of cores"),
        .value(
            "engine-isolation", valueName: "kind",
            help:
                "process: each engine reads in a worker process of its own, so that a crash in Tesseract or another "
                + "C library fails that frame only and a recognition that will not stop is killed; none: engines "
                + "run on threads of the server's process.",
            default: "process"),
        .flag(
            "engine-worker",
            help: "Run as one engine worker of a legibled (legibled starts these itself; not for use by hand)."),
        .value(
            "replicas-per-script", valueName: "n", help: "Engines each script may load while its sessions wait.",
            default: "1"),
        .value(
            "model", valueName: "script=name",
            help: "The Tesseract model a script reads, e.g. latin=Latin or chinese=chi_sim; repeatable.",
            default: "latin=eng chinese=HanS devanagari=Devanagari japanese=jpn korean=kor", repeatable: true),
        .value(
            "engine-idle-seconds", valueName: "s", help: "Unload an engine idle this long; 0 keeps engines.",
            default: "300"),
        .value(
            "frame-deadline-ms", valueName: "ms",
            help:
                "Fail a recognition running longer (DEADLINE_EXCEEDED); 0 for none. Raise it for large dense "
                + "documents (a 12 MP page of small print can take minutes).",
            default: "10000"),
        .value(
            "max-sessions", valueName: "n", help: "Sessions at once; more are refused with UNAVAILABLE.",
            default: "4096"),
        .value(
            "max-connections", valueName: "n",
            help: "Open connections at once; more are told RESOURCE_EXHAUSTED and closed.",
            default: "8192"),
        .value(
            "max-unstarted-connections", valueName: "n",
            help:
                "Connections without a started session at once; the oldest is closed to make room for a newcomer "
                + "(also at --max-connections and --max-connections-per-peer).",
            default: "1280"),
        .value(
            "max-connections-per-peer", valueName: "n",
            help: "Open connections from one peer: a user on a Unix socket, an address on TCP.", default: "2048"),
        .value(
            "max-buffered-bytes", valueName: "n",
            help:
                "Bytes of messages still arriving held across connections beyond 2 MiB each; past it the largest "
                + "senders are not read until memory frees.",
            default: "268435456"),
        .value(
            "first-message-seconds", valueName: "s", help: "Close a client that sends no StartSession this long.",
            default: "10"),
        .value(
            "message-seconds", valueName: "s", help: "Close a client whose message takes longer than this to arrive.",
            default: "30"),
        .value(
            "idle-seconds", valueName: "s", help: "Close a session that sends nothing (not even a Ping) this long.",
            default: "300"),
        .value(
            "max-write-queue-bytes", valueName: "n",
            help: "Result bytes queued for a client before the server stops reading from it.", default: "4194304"),
        .value(
            "write-stall-seconds", valueName: "s", help: "Close a client that reads none of its results this long.",
            default: "10"),
        .value(
            "max-custom-engines", valueName: "n",
            help:
                "Engines with custom words, no dictionary or several scripts kept at once (least recently used go first).",
            default: "4"),
        .value(
            "custom-engine-mb", valueName: "mb",
            help:
                "Memory those engines may take together: each counted at what an engine of its kind was measured "
                + "to take in its worker process once loaded, estimated before that (an eng engine ~254 MB; ~64 MB "
                + "with --engine-isolation none, always estimated).",
            default: "1280"),
        .value("max-message-bytes", valueName: "n", help: "Largest message accepted.", default: "16777216"),
        .value(
            "max-pixels", valueName: "n",
            help: "Largest decoded frame, in pixels: 4096x4096 by default (a 12 MP phone photo fits).",
            default: "16777216"),
        .value(
            "max-noise", valueName: "share",
            help:
                "A frame of 1 MP or more for Tesseract's page layout is refused (INVALID_ARGUMENT) when more of its "
                + "neighbouring pixels differ than this: noise, whose layout cannot be stopped; 1 never.",
            default: "0.3"),
        .value("latin-model", valueName: "name", help: "Short for --model latin=NAME.", default: "eng"),
        .value("log-level", valueName: "level", help: "debug, info, warning or error.", default: "info"),
        .value("log-format", valueName: "format", help: "text or json, one line per event on stderr.", default: "text"),
        .value(
            "metrics", valueName: "address", help: "Serve /metrics, /healthz and /readyz over HTTP on tcp:HOST:PORT.",
            default: "off"),
        .flag("print-config", help: "Print the effective settings and where each came from, then exit."),
        .value(
            "calibration-delay-ms", valueName: "ms",
            help: "Instead of Tesseract, answer every frame after exactly this long (for checking load tools).",
            default: "off"),
        .flag("version", help: "Print the version and exit."),
    ])

/// libgomp reads OMP_THREAD_LIMIT when it loads, before `main`: setting it here is too late, so
/// the server re-executes itself once with the variable in its environment.
func ensureOpenMPThreadLimit() {
    guard getenv("OMP_THREAD_LIMIT") == nil else { return }
    setenv("OMP_THREAD_LIMIT", "1", 1)
    var arguments = CommandLine.arguments.map { strdup($0) }
    arguments.append(nil)
    execv("/proc/self/exe", &arguments)
    StandardStream.error.write(
        "legibled: warning: could not re-exec with OMP_THREAD_LIMIT=1; recognition will be slow\n")
}

var parsed = command.parseOrExit()
do throws(CommandLineError) {
    parsed = try parsed.mergingEnvironment(
        ProcessInfo.processInfo.environment, prefix: "LEGIBLE_", options: command.options)
} catch {
    if case .usage(let message, _) = error { fail(message, code: .usage) }
    fail("\(error)", code: .usage)
}
if parsed.flag("version") {
    StandardStream.output.write("legibled \(ServerConfiguration.version)\n")
    exit(0)
}
ensureOpenMPThreadLimit()

func makeConfiguration(_ parsed: ParsedCommandLine) throws(LegibleError) -> ServerConfiguration {
    var configuration = ServerConfiguration()
    func integer(_ name: String, _ range: ClosedRange<Int>) throws(LegibleError) -> Int {
        do throws(CommandLineError) {
            return try parsed.integer(name, in: range)!
        } catch {
            if case .usage(let message, _) = error { throw LegibleError(.invalidArgument, message) }
            throw LegibleError(.invalidArgument, "--\(name)")
        }
    }
    /// A number from 0 to 1 (a confidence or a share).
    func fraction(_ name: String) throws(LegibleError) -> Float {
        guard let value = Float(parsed.value(name)!), (0...1).contains(value) else {
            throw LegibleError(.invalidArgument, "--\(name) takes a number from 0 to 1")
        }
        return value
    }
    /// A detector input's long side: a multiple of 32.
    func detectorSide(_ name: String, example: Int) throws(LegibleError) -> Int {
        let side = try integer(name, 32...4096)
        guard side % 32 == 0 else {
            throw LegibleError(.invalidArgument, "--\(name) takes a multiple of 32, such as \(example)")
        }
        return side
    }
    if parsed.isSet("listen") {
        configuration.listen = try parsed.values("listen").map { (text) throws(LegibleError) in
            try ServerAddress(parsing: text)
        }
    }
    if parsed.isSet("socket-mode") {
        guard let mode = UInt32(parsed.value("socket-mode")!, radix: 8), mode <= 0o777 else {
            throw LegibleError(.invalidArgument, "--socket-mode takes an octal file mode such as 0660")
        }
        configuration.socketMode = mode
    }
    if parsed.isSet("tessdata") { configuration.tessdata = parsed.value("tessdata")! }
    if parsed.isSet("detector") {
        guard let choice = LineDetectorChoice(rawValue: parsed.value("detector")!) else {
            throw LegibleError(.invalidArgument, "--detector takes pp-ocrv4 or tesseract")
        }
        configuration.detector = choice
    }
    if parsed.isSet("detector-model") { configuration.detectorModel = parsed.value("detector-model")! }
    if parsed.isSet("detector-max-side") {
        configuration.detectorMaxSide = try detectorSide("detector-max-side", example: 960)
    }
    if parsed.isSet("detector-accurate-max-side") {
        configuration.detectorAccurateMaxSide = try detectorSide("detector-accurate-max-side", example: 960)
    }
    if parsed.isSet("detector-min-side") {
        configuration.detectorMinSide = try integer("detector-min-side", 0...4096)
    }
    if parsed.isSet("pp-ocr-scripts") {
        let list = parsed.value("pp-ocr-scripts")!
        var scripts: Set<Script> = []
        if list != "none" {
            for name in list.split(separator: ",") {
                guard let script = Script(name: String(name)) else {
                    throw LegibleError(
                        .invalidArgument,
                        "--pp-ocr-scripts takes script names (\(Script.allCases.map(\.description).joined(separator: ", "))) or none"
                    )
                }
                scripts.insert(script)
            }
        }
        configuration.ppOCRScripts = scripts
    }
    if parsed.isSet("recognition-model") { configuration.recognitionModel = parsed.value("recognition-model")! }
    if parsed.isSet("second-opinion-model") {
        configuration.secondOpinionModel = parsed.value("second-opinion-model")!
    }
    if parsed.isSet("second-opinion-below") { configuration.secondOpinionBelow = try fraction("second-opinion-below") }
    if parsed.isSet("fast-second-opinion-below") {
        configuration.fastSecondOpinionBelow = try fraction("fast-second-opinion-below")
    }
    if parsed.isSet("accent-check") {
        switch parsed.value("accent-check")! {
        case "on": configuration.checksAccents = true
        case "off": configuration.checksAccents = false
        default: throw LegibleError(.invalidArgument, "--accent-check takes on or off")
        }
    }
    if parsed.isSet("min-line-confidence") {
        configuration.minimumLineConfidence = try LineConfidenceFloor(parsing: parsed.value("min-line-confidence")!)
    }
    if parsed.isSet("workers") { configuration.workers = try integer("workers", 1...1024) }
    switch parsed.isSet("engine-isolation") ? parsed.value("engine-isolation")! : "process" {
    case "process":
        // A worker is this program with these arguments (the environment is inherited).
        configuration.engineWorkers = WorkerCommand(
            executable: "/proc/self/exe", arguments: CommandLine.arguments + ["--engine-worker"])
    case "none": configuration.engineWorkers = nil
    default: throw LegibleError(.invalidArgument, "--engine-isolation takes process or none")
    }
    if parsed.isSet("replicas-per-script") {
        configuration.replicasPerScript = try integer("replicas-per-script", 1...64)
    }
    if parsed.isSet("max-message-bytes") {
        configuration.maxMessageBytes = try integer("max-message-bytes", 1024...Int(UInt32.max))
    }
    if parsed.isSet("max-noise") {
        guard let share = Double(parsed.value("max-noise")!), share >= 0, share <= 1 else {
            throw LegibleError(.invalidArgument, "--max-noise takes a share between 0 and 1")
        }
        configuration.maxNoise = share
    }
    if parsed.isSet("max-pixels") { configuration.maxPixels = try integer("max-pixels", 1...1_000_000_000) }
    var models = configuration.models.defaults
    if parsed.isSet("latin-model") { models[.latin] = parsed.value("latin-model")! }
    for assignment in parsed.isSet("model") ? parsed.values("model") : [] {
        let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let script = Script(name: parts[0]), !parts[1].isEmpty else {
            throw LegibleError(
                .invalidArgument,
                "--model takes SCRIPT=NAME with SCRIPT one of latin, chinese, devanagari, japanese, korean")
        }
        models[script] = parts[1]
    }
    configuration.models = ModelSelection(defaults: models)
    if parsed.isSet("engine-idle-seconds") {
        configuration.engineIdleSeconds = try integer("engine-idle-seconds", 0...86_400)
    }
    if parsed.isSet("frame-deadline-ms") {
        configuration.frameDeadlineMillis = try integer("frame-deadline-ms", 0...3_600_000)
    }
    if parsed.isSet("max-connections") { configuration.maxConnections = try integer("max-connections", 1...1_000_000) }
    if parsed.isSet("max-unstarted-connections") {
        configuration.maxUnstartedConnections = try integer("max-unstarted-connections", 1...1_000_000)
    }
    if parsed.isSet("max-buffered-bytes") {
        configuration.maxBufferedBytes = try integer("max-buffered-bytes", 0...(1 << 40))
    }
    if parsed.isSet("max-connections-per-peer") {
        configuration.maxConnectionsPerPeer = try integer("max-connections-per-peer", 1...1_000_000)
    }
    if parsed.isSet("first-message-seconds") {
        configuration.firstMessageSeconds = try integer("first-message-seconds", 1...3600)
    }
    if parsed.isSet("message-seconds") { configuration.messageSeconds = try integer("message-seconds", 1...3600) }
    if parsed.isSet("idle-seconds") { configuration.idleSeconds = try integer("idle-seconds", 1...86_400) }
    if parsed.isSet("socket-group") { configuration.socketGroup = parsed.value("socket-group")! }
    configuration.allowUnauthenticatedRemote = parsed.flag("allow-unauthenticated-remote")
    configuration.allowRemoteMetrics = parsed.flag("allow-remote-metrics")
    if parsed.isSet("auth-token-file") {
        let path = parsed.value("auth-token-file")!
        guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw LegibleError(.invalidArgument, "--auth-token-file: cannot read \(path)")
        }
        let tokens = AccessTokens(fileContents: contents)
        guard tokens.isRequired else {
            throw LegibleError(.invalidArgument, "--auth-token-file: \(path) holds no token")
        }
        configuration.accessTokens = tokens
    }
    // (The defaults in --help are words, not values: only what was given counts.)
    func given(_ name: String) -> String? { parsed.isSet(name) ? parsed.value(name) : nil }
    switch (given("tls-cert"), given("tls-key")) {
    case (let certificate?, let key?):
        configuration.tls = TLSFiles(
            certificateChain: certificate, privateKey: key, clientCA: given("tls-client-ca"))
    case (nil, nil):
        if parsed.isSet("tls-client-ca") { throw LegibleError(.invalidArgument, "--tls-client-ca needs --tls-cert") }
    default:
        throw LegibleError(.invalidArgument, "--tls-cert and --tls-key go together")
    }
    if parsed.isSet("max-sessions") { configuration.maxSessions = try integer("max-sessions", 1...1_000_000) }
    if parsed.isSet("max-write-queue-bytes") {
        configuration.maxWriteQueueBytes = try integer("max-write-queue-bytes", 4096...(1 << 30))
    }
    if parsed.isSet("write-stall-seconds") {
        configuration.writeStallSeconds = try integer("write-stall-seconds", 1...3600)
    }
    if parsed.isSet("max-custom-engines") { configuration.maxCustomEngines = try integer("max-custom-engines", 1...64) }
    if parsed.isSet("custom-engine-mb") {
        configuration.customEngineMegabytes = try integer("custom-engine-mb", 1...1_000_000)
    }
    if parsed.isSet("calibration-delay-ms") {
        let delay = Duration.milliseconds(try integer("calibration-delay-ms", 0...600_000))
        configuration.recognizerFactory = { key, cancellation in
            CalibrationRecognizer(key: key, delay: delay, cancellation: cancellation)
        }
    }
    if parsed.isSet("metrics") {
        let address = try ServerAddress(parsing: parsed.value("metrics")!)
        guard case .tcp = address else { throw LegibleError(.invalidArgument, "--metrics takes tcp:HOST:PORT") }
        configuration.metricsAddress = address
    }
    if parsed.isSet("log-format") {
        guard let format = Log.Format(rawValue: parsed.value("log-format")!) else {
            throw LegibleError(.invalidArgument, "--log-format takes text or json")
        }
        configuration.logFormat = format
    }
    if parsed.isSet("log-level") {
        let levels: [String: Log.Level] = ["debug": .debug, "info": .info, "warning": .warning, "error": .error]
        guard let level = levels[parsed.value("log-level")!] else {
            throw LegibleError(.invalidArgument, "--log-level takes debug, info, warning or error")
        }
        configuration.logLevel = level
    }
    return configuration
}

let configuration: ServerConfiguration
do {
    configuration = try makeConfiguration(parsed)
} catch {
    // A bad value from the environment names its variable, so that it can be found.
    let culprit = command.options.first {
        error.message.hasPrefix("--\($0.name) ") && parsed.source(of: $0.name) == .environment
    }
    let origin = culprit.map { " (from \(ParsedCommandLine.environmentName(of: $0.name, prefix: "LEGIBLE_")))" } ?? ""
    fail(error.message + origin, code: .usage)
}

if parsed.flag("engine-worker") {
    // Started by legibled (WorkerLauncher) with its own arguments: build the same pipelines
    // and serve one engine over descriptor 3. SIGTERM and SIGINT stay blocked (inherited):
    // the worker ends when legibled closes its socket or kills it.
    signal(SIGPIPE, SIG_IGN)
    EngineWorker.run(pipelines: PipelineFactory(settings: configuration.pipelineSettings))
}

if parsed.flag("print-config") {
    var out = ""
    let calibration = (
        "calibration-delay-ms", parsed.isSet("calibration-delay-ms") ? parsed.value("calibration-delay-ms") ?? "" : ""
    )
    for (option, value) in configuration.effectiveValues + [calibration] {
        let source = parsed.source(of: option)
        let origin =
            source == .environment
            ? "\(source.rawValue) \(ParsedCommandLine.environmentName(of: option, prefix: "LEGIBLE_"))"
            : source.rawValue
        out += "\(option) = \(value)    # \(origin)\n"
    }
    StandardStream.output.write(out)
    exit(0)
}

do {
    // Threads inherit the signal mask: SIGTERM and SIGINT are blocked before the server starts
    // any, so that they reach only the watcher below (through a signalfd), which asks the
    // server to drain. A peer that hangs up must not kill the process (SIGPIPE).
    // SIGHUP reads the TLS certificates again.
    ShutdownSignals.block(hangUp: true)
    signal(SIGPIPE, SIG_IGN)
    let signals = try ShutdownSignals(hangUp: true)
    let server = try Server(configuration: configuration)
    let trigger = server.shutdownTrigger
    Thread.detachNewThread {
        while true {
            for number in signals.wait() {
                if number == SIGHUP {
                    trigger.reloadCertificates()
                } else {
                    trigger.drain(reason: "signal \(number)")
                }
            }
        }
    }
    try server.run()
    exit(0)
} catch {
    fail(error.message, code: .failure)
}
