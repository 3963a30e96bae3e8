internal import LegibleClient
internal import LegibleCommandLine
internal import LegibleCore
internal import LegibleLoadCore
internal import LegibleTLS
internal import LegibleWire

/// `legible-load`'s command line: declared once, so `--help` and parsing agree.
let loadCommand = Command(
    name: "legible-load",
    abstract: "Load-test a Legible server with many camera sessions at a fixed frame rate.",
    discussion: """
        Open loop, like wrk2: session k starts at k x ramp-up / sessions and sends its frame i
        at start + i / fps, whether or not earlier frames were answered. Latency runs from a
        frame's scheduled send time to the arrival of its result, so a server (or a harness)
        that falls behind shows in it: no coordinated omission. Result age is how old the text
        a session shows is, sampled every 10 ms. All sessions share one epoll thread; a session
        holds at most 2 unsent frames, and a due frame that finds no room is counted as
        client_skipped with its scheduled time.

        Every frame is accounted for: scheduled = sent + client_skipped, and
        sent = recognized + dropped + skipped + failed + unanswered, where unanswered must be 0
        after the drain. The run is bounded: it ends at most drain-timeout seconds after the
        last session's last frame was due, and --max-frames bounds the count. Targets are unix
        sockets and loopback TCP (127.0.0.0/8, ::1, localhost) unless --allow-remote. Server
        CPU and memory come from /proc when the server is local: its PID is read from the unix
        socket (SO_PEERCRED), or given with --server-pid.

        Session options (--level, --mode, --recognize-unchanged, --wait-for-steady,
        --max-frame-age-ms, --language-hint, --include-symbols, --auto-orientation,
        --detect-entities) go to every session's StartSession.

        EXAMPLES:
          legible-load --sessions 8 --fps 10 --duration 20
          legible-load --sessions 200 --fps 5 --duration 60 --ramp-up 20 --html load.html
          legible-load --server unix:/run/legible.sock --frames shots/ --script latin \\
              --script chinese --json out.json
          legible-load --sessions 4 --fps 20 --duration 5 --max-frame-age-ms 200
          legible-load --sessions 30 --frames signs/ --script latin+devanagari,japanese+latin,auto

        EXIT CODES:
          0   every sent frame was answered and none failed
          1   frames failed or went unanswered, or a session ended in error
          2   the server cannot be reached, or it refused every session
          64  bad usage, or a remote target without --allow-remote
        """,
    options: [
        .value("sessions", short: "n", valueName: "n", help: "Concurrent sessions (streams).", default: "1"),
        .value("fps", valueName: "fps", help: "Frames per second each session sends (decimals allowed).", default: "5"),
        .value("duration", short: "d", valueName: "seconds", help: "How long each session sends.", default: "10"),
        .value(
            "ramp-up", valueName: "seconds",
            help: "Session starts spread over this long; session k starts at k x ramp-up / sessions.",
            default: "one frame interval, 1/fps"),
        .value("frames", valueName: "dir", help: "Send the JPEG and PNG files of this folder, cycled."),
        .value(
            "generate", valueName: "WxH",
            help: "Send 8 generated gray JPEGs of this size with text drawn in them (without --frames).",
            default: "640x480"),
        .value(
            "script", valueName: "script",
            help:
                "Sessions' scripts, assigned round-robin: latin, chinese, devanagari, japanese, korean; several in one session joined by + (latin+devanagari); auto for automatically_detect_script (repeatable, or comma-separated).",
            default: "latin", repeatable: true),
        .value("seed", valueName: "n", help: "Seed of the generated frames.", default: "1"),
        .value(
            "server", valueName: "address", help: "unix:PATH or tcp:HOST:PORT.",
            default: "unix:legible.sock, then tcp:127.0.0.1:7480"),
        .value(
            "transport", valueName: "name",
            help:
                "framed (Legible's own framing) or grpc (each session a gRPC Recognizer/Stream call over HTTP/2, "
                + "on a connection of its own).",
            default: "framed"),
        .value(
            "tls-ca", valueName: "path",
            help: "Speak TLS to a tcp: --server whose certificate this CA (PEM) signed, for the host named.",
            default: "cleartext"),
        .value("tls-cert", valueName: "path", help: "With --tls-ca: the sessions' client certificate (mutual TLS)."),
        .value("tls-key", valueName: "path", help: "The private key of --tls-cert."),
        .flag("allow-remote", help: "Allow a TCP target that is not this machine."),
        .value(
            "server-pid", valueName: "pid",
            help: "The server's PID, for its CPU and memory (found by itself on unix sockets)."),
        .value("max-frames", valueName: "n", help: "Send at most this many frames in all (the earliest due)."),
        .value(
            "drain-timeout", valueName: "seconds", help: "Wait this long for answers after the last frame is due.",
            default: "10"),
        .value(
            "dump-frames", valueName: "dir", help: "Write the frames that would be sent into this folder, then exit."),
        .value("json", valueName: "file", help: "Write every number, per-second series and per-session rows as JSON."),
        .value("html", valueName: "file", help: "Write a self-contained HTML page with charts over time."),
        .value("level", valueName: "level", help: "Session option: fast or accurate."),
        .value("mode", valueName: "mode", help: "Session option: text or document."),
        .flag("recognize-unchanged", help: "Session option: read frames that differ too little from the last read."),
        .flag("wait-for-steady", help: "Session option: skip frames while the camera moves."),
        .value("max-frame-age-ms", valueName: "ms", help: "Session option: drop pending frames older than this."),
        .value(
            "language-hint", valueName: "tag", help: "Session option: a BCP-47 language hint (repeatable).",
            repeatable: true),
        .flag("include-symbols", help: "Session option: fill symbols in results."),
        .flag("auto-orientation", help: "Session option: let OSD turn frames upright."),
        .flag("detect-entities", help: "Session option: find phone numbers, URLs, dates in the text."),
    ])

/// Everything a run is configured with, checked.
struct LoadSettings {
    static let version = "0.1"

    var schedule: OpenLoopSchedule
    var durationSeconds: Double
    var rampUpSeconds: Double
    /// Tried in order for the first session; the others use the one that answered.
    var addresses: [ServerAddress]
    /// How the sessions speak to the server (`--transport`).
    var transport: ClientTransport
    /// TLS to the server (`--tls-ca`), or nil for cleartext.
    var tls: TLSClientContext?
    var scripts: [SessionScripts]
    var options: RecognitionOptions
    /// The session options as given, for the report.
    var optionWords: [String]
    var drainTimeout: Double
    var framesFolder: String?
    var generateSize: (width: Int, height: Int)
    var seed: UInt64
    var jsonPath: String?
    var htmlPath: String?
    var dumpFramesFolder: String?
    var serverPID: Int32?

    init(_ parsed: ParsedCommandLine) throws(CommandLineError) {
        func usage(_ message: String) -> CommandLineError { .usage(message, commandPath: parsed.commandPath) }
        func decimal(_ name: String, _ range: ClosedRange<Double>) throws(CommandLineError) -> Double? {
            guard let text = parsed.value(name) else { return nil }
            guard let number = Double(text), number.isFinite, range.contains(number) else {
                throw usage("--\(name) takes a number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
            }
            return number
        }

        let sessions = try parsed.integer("sessions", in: 1...100_000)!
        let fps = try decimal("fps", 0.001...1000)!
        guard fps > 0 else { throw usage("--fps must be above 0") }
        durationSeconds = try decimal("duration", 0.001...86_400)!
        rampUpSeconds =
            parsed.isSet("ramp-up")
            ? try decimal("ramp-up", 0...86_400)! : Double(OpenLoopSchedule.defaultRampUp(framesPerSecond: fps)) / 1e9
        let maxFrames = try parsed.integer("max-frames", in: 1...Int.max)
        schedule = OpenLoopSchedule(
            sessions: sessions, framesPerSecond: fps, duration: Nanoseconds((durationSeconds * 1e9).rounded()),
            rampUp: Nanoseconds((rampUpSeconds * 1e9).rounded()), maxFrames: maxFrames)
        guard schedule.totalFrames > 0 else { throw usage("--duration x --fps schedules no frame") }
        drainTimeout = try decimal("drain-timeout", 0...3600)!

        let transportName = parsed.isSet("transport") ? parsed.value("transport")! : "framed"
        guard let transport = ClientTransport(rawValue: transportName) else {
            throw usage("--transport: expected framed or grpc, got \(transportName)")
        }
        self.transport = transport
        if parsed.isSet("tls-ca") {
            guard parsed.isSet("tls-cert") == parsed.isSet("tls-key") else {
                throw usage("--tls-cert and --tls-key go together")
            }
            do throws(LegibleError) {
                tls = try TLSClientContext(
                    certificateAuthority: parsed.value("tls-ca")!, certificateChain: parsed.value("tls-cert"),
                    privateKey: parsed.value("tls-key"), http2: transport == .grpc)
            } catch {
                throw usage(error.message)
            }
        } else {
            tls = nil
        }
        if parsed.isSet("server") {
            do throws(LegibleError) {
                addresses = [try ServerAddress(parsing: parsed.value("server")!)]
            } catch {
                throw usage(error.message)
            }
        } else {
            addresses = ServerAddress.defaults
        }
        if !parsed.flag("allow-remote") {
            for case .tcp(let host, _) in addresses where !TargetPolicy.isLoopback(host: host) {
                throw usage(
                    "\(host) is not this machine: legible-load targets unix sockets and loopback only "
                        + "(127.0.0.0/8, ::1, localhost); pass --allow-remote to load a remote server")
            }
        }

        scripts = []
        for word in parsed.values("script").flatMap({ $0.split(separator: ",") }) {
            guard let choice = SessionScripts(String(word)) else {
                throw usage(
                    "unknown script '\(word)': latin, chinese, devanagari, japanese or korean, several joined by +, or auto"
                )
            }
            scripts.append(choice)
        }

        framesFolder = parsed.value("frames")
        if framesFolder != nil && parsed.isSet("generate") { throw usage("--frames and --generate exclude each other") }
        let size = parsed.value("generate")!.lowercased().split(separator: "x")
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), (16...8192).contains(width),
            (16...8192).contains(height)
        else { throw usage("--generate takes WIDTHxHEIGHT, each 16...8192, e.g. 640x480") }
        generateSize = (width, height)
        guard let seed = UInt64(parsed.value("seed")!) else { throw usage("--seed takes a whole number ≥ 0") }
        self.seed = seed
        jsonPath = parsed.value("json")
        dumpFramesFolder = parsed.value("dump-frames")
        htmlPath = parsed.value("html")
        serverPID = try parsed.integer("server-pid", in: 1...Int(Int32.max)).map { Int32($0) }

        options = RecognitionOptions()
        optionWords = []
        if let level = try parsed.choice("level", from: ["fast", "accurate"]) {
            options.level = level == "fast" ? .fast : .accurate
            optionWords.append("--level \(level)")
        }
        if let mode = try parsed.choice("mode", from: ["text", "document"]) {
            options.mode = mode == "text" ? .text : .document
            optionWords.append("--mode \(mode)")
        }
        if let age = try parsed.integer("max-frame-age-ms", in: 0...Int(UInt32.max)) {
            options.maxFrameAgeMillis = UInt32(age)
            optionWords.append("--max-frame-age-ms \(age)")
        }
        if parsed.isSet("language-hint") {
            options.languageHints = parsed.values("language-hint")
            optionWords += options.languageHints.map { "--language-hint \($0)" }
        }
        let flags: [(String, WritableKeyPath<RecognitionOptions, Bool>)] = [
            ("recognize-unchanged", \.recognizeUnchanged), ("wait-for-steady", \.waitForSteady),
            ("include-symbols", \.includeSymbols), ("auto-orientation", \.autoOrientation),
            ("detect-entities", \.detectEntities),
        ]
        for (name, path) in flags where parsed.flag(name) {
            options[keyPath: path] = true
            optionWords.append("--\(name)")
        }
    }

    /// How the frames are described in reports.
    func framesDescription(_ frames: [LoadFrame]) -> String {
        let kilobytes = frames.map(\.image.data.count).reduce(0, +) / max(frames.count, 1) / 1024
        if let framesFolder { return "\(framesFolder) (\(frames.count) files, \(kilobytes) KB on average)" }
        return
            "generated \(generateSize.width)x\(generateSize.height) JPEGs (\(frames.count) frames, \(kilobytes) KB on average, "
            + "seed \(seed))"
    }
}

/// One session's scripts as `--script` spells them: `latin`, `latin+devanagari`, or `auto`
/// (no script named, `automatically_detect_script`).
enum SessionScripts: Equatable, CustomStringConvertible {
    case named([Script])
    case automatic

    init?(_ word: String) {
        if word == "auto" {
            self = .automatic
            return
        }
        var scripts: [Script] = []
        for name in word.split(separator: "+", omittingEmptySubsequences: false) {
            guard let script = Script(name: String(name)), !scripts.contains(script) else { return nil }
            scripts.append(script)
        }
        self = .named(scripts)
    }

    var description: String {
        switch self {
        case .named(let scripts): scripts.map(\.description).joined(separator: "+")
        case .automatic: "auto"
        }
    }

    /// These scripts set in a session's options.
    func applied(to options: RecognitionOptions) -> RecognitionOptions {
        var options = options
        switch self {
        case .named(let scripts): options.scripts = scripts.map { .known($0) }
        case .automatic:
            options.scripts = []
            options.automaticallyDetectScript = true
        }
        return options
    }
}
