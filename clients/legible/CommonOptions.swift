import Foundation
import LegibleClient
import LegibleCommandLine
import LegibleCore
import LegibleTLS
import LegibleWire

/// The client's version, printed by `legible version` and sent as the session's client name.
let clientVersion = "0.2.0"
let clientName = "legible-cli/\(clientVersion)"

/// A failure that ends the program with `code` after printing `message`.
struct CLIFailure: Error {
    var code: ExitCode
    var message: String
    /// A usage failure about the flags points to `--help`; one about an input file (missing,
    /// not an image) is one line: the help would not tell the user more.
    var pointsToHelp = true

    init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    static func usage(_ message: String) -> CLIFailure { CLIFailure(.usage, message) }

    /// A usage failure about an input file: exit 64, one line.
    static func input(_ message: String) -> CLIFailure {
        var failure = CLIFailure(.usage, message)
        failure.pointsToHelp = false
        return failure
    }
}

extension CommandLineError {
    /// The parser's complaint about a value, as a usage failure.
    var failure: CLIFailure {
        switch self {
        case .usage(let message, _): .usage(message)
        case .helpRequested: .usage("help requested")
        }
    }
}

/// The exit statuses every subcommand documents.
let standardExitCodes: [ExitCodeHelp] = [
    ExitCodeHelp(ExitCode.success.rawValue, "Success."),
    ExitCodeHelp(ExitCode.failure.rawValue, "Some frame failed (the reason is on standard error)."),
    ExitCodeHelp(ExitCode.unavailable.rawValue, "The server cannot be reached, or the connection was lost."),
    ExitCodeHelp(
        ExitCode.usage.rawValue,
        "Bad usage: an unknown flag, a bad value, an unreadable input, or one that is no image."),
]

// MARK: Server

let serverOption = Option.value(
    "server", valueName: "address", help: "unix:PATH or tcp:HOST:PORT.",
    default: "unix:legible.sock, then tcp:127.0.0.1:7480")

let transportOption = Option.value(
    "transport", valueName: "name",
    help:
        "framed (Legible's own framing) or grpc (the same session as a gRPC Recognizer/Stream call over HTTP/2); "
        + "every listener serves both.",
    default: "framed")

/// TLS to a server's TCP listener (`legibled --tls-cert`).
let tlsOptions: [Option] = [
    .value(
        "tls-ca", valueName: "path",
        help: "Speak TLS to a tcp: --server whose certificate this CA (PEM) signed, for the host named.",
        default: "cleartext"),
    .value(
        "tls-cert", valueName: "path", help: "With --tls-ca: this client's certificate (mutual TLS).", default: "none"),
    .value("tls-key", valueName: "path", help: "The private key of --tls-cert.", default: "none"),
]

/// The client's TLS (`--tls-ca`, and `--tls-cert`/`--tls-key` for mutual TLS), or nil for cleartext.
func clientTLS(_ parsed: ParsedCommandLine, transport: ClientTransport) throws(CLIFailure) -> TLSClientContext? {
    func given(_ name: String) -> String? { parsed.isSet(name) ? parsed.value(name) : nil }
    guard let authority = given("tls-ca") else {
        if given("tls-cert") != nil || given("tls-key") != nil {
            throw .usage("--tls-cert and --tls-key need --tls-ca")
        }
        return nil
    }
    guard (given("tls-cert") == nil) == (given("tls-key") == nil) else {
        throw .usage("--tls-cert and --tls-key go together")
    }
    do {
        return try TLSClientContext(
            certificateAuthority: authority, certificateChain: given("tls-cert"), privateKey: given("tls-key"),
            http2: transport == .grpc)
    } catch {
        throw .usage(error.message)
    }
}

/// `--transport`: how to speak to the server.
func clientTransport(_ parsed: ParsedCommandLine) throws(CLIFailure) -> ClientTransport {
    guard parsed.isSet("transport"), let text = parsed.value("transport") else { return .framed }
    guard let transport = ClientTransport(rawValue: text) else {
        throw .usage("--transport: expected framed or grpc, got \(text)")
    }
    return transport
}

/// The addresses to try: `--server`'s, else the defaults in order.
func serverAddresses(_ parsed: ParsedCommandLine) throws(CLIFailure) -> [ServerAddress] {
    guard parsed.isSet("server"), let text = parsed.value("server") else { return ServerAddress.defaults }
    do {
        return [try ServerAddress(parsing: text)]
    } catch {
        throw .usage("--server: \(error.message)")
    }
}

// MARK: Recognition options

/// A flag for every field of `RecognitionOptions`, shared by `recognize` and `stream`.
let recognitionOptions: [Option] = Option.group(
    "Recognition options",
    [
        .value(
            "script", valueName: "script",
            help:
                "latin, chinese, devanagari, japanese or korean; repeatable; auto: find each line's script among the server's (automatically_detect_script). (default: the server's, latin)",
            repeatable: true),
        .value(
            "language", valueName: "bcp47", help: "A language hint such as en, de or zh-Hant; repeatable.",
            repeatable: true),
        .value(
            "mode", valueName: "mode", help: "text (blocks, lines, elements) or document (paragraphs, words, breaks).",
            default: "text"),
        .value("level", valueName: "level", help: "fast or accurate.", default: "fast"),
        .value(
            "custom-word", valueName: "word", help: "A word to prefer (a product name, a code); repeatable.",
            repeatable: true),
        .value("custom-words-file", valueName: "file", help: "Words to prefer, one per line."),
        .value("roi", valueName: "x,y,w,h", help: "Read only inside this region of the upright image (pixels)."),
        .value("max-candidates", valueName: "n", help: "Alternative readings per word and symbol.", default: "0"),
        .flag("symbols", help: "Include each word's symbols (characters)."),
        .flag("auto-orientation", help: "Let Tesseract's OSD turn the image further by quarter turns."),
        .flag("no-language-correction", help: "Read without Tesseract's dictionary."),
        .value(
            "minimum-text-height", valueName: "fraction",
            help: "Leave out lines lower than this fraction (0...1) of the image height.", default: "0"),
        .flag("entities", help: "Find phone numbers, e-mail addresses, URLs, dates and card numbers."),
        .value(
            "capture", valueName: "goal",
            help:
                "Look for phone, email, url, date, card (Luhn-checked) or re:PATTERN (RE2 syntax, within a line); "
                + "repeatable. Each value is printed as 'captured GOAL: VALUE' once read in --confirmations results.",
            repeatable: true),
        .value(
            "confirmations", valueName: "n",
            help: "Results a value must be read in to be captured. (default: 3 for stream, 1 for recognize)"),
        .value(
            "max-frame-age-ms", valueName: "ms",
            help: "Drop a frame that waited this long for an engine; 0 for no limit.", default: "0"),
        .value(
            "stable-after", valueName: "n", help: "Results every line must hold its text for to be stable. (default: 3)"
        ),
        .flag("wait-for-steady", help: "Skip frames while the camera moves."),
        .flag(
            "recognize-unchanged",
            help: "Read frames that barely differ from the last one read, instead of skipping them."),
        .value(
            "orientation", valueName: "orientation",
            help: "How to turn each image upright: up, up-mirrored, down, down-mirrored, left-mirrored, right, "
                + "right-mirrored, left, or the EXIF value 1...8. (default: the JPEG's EXIF tag, else up)"),
    ])

/// `RecognitionOptions` from the recognition flags.
func parseRecognitionOptions(_ parsed: ParsedCommandLine) throws(CLIFailure) -> RecognitionOptions {
    var options = RecognitionOptions()
    for name in parsed.values("script") {
        if name == "auto" {
            options.automaticallyDetectScript = true
            continue
        }
        guard let script = Script(name: name) else {
            let known = Script.allCases.map(\.description).joined(separator: ", ")
            throw .usage("--script takes one of \(known), not '\(name)'")
        }
        options.scripts.append(.known(script))
    }
    options.languageHints = parsed.values("language")
    do {
        options.mode = try parsed.choice("mode", from: ["text", "document"]) == "document" ? .document : .text
        options.level = try parsed.choice("level", from: ["fast", "accurate"]) == "accurate" ? .accurate : .fast
        options.maxCandidates = UInt32(try parsed.integer("max-candidates", in: 0...100) ?? 0)
        options.maxFrameAgeMillis = UInt32(try parsed.integer("max-frame-age-ms", in: 0...Int(UInt32.max)) ?? 0)
        options.stableAfter = UInt32(try parsed.integer("stable-after", in: 1...10_000) ?? 0)
    } catch {
        throw error.failure
    }
    options.customWords = parsed.values("custom-word")
    if let path = parsed.value("custom-words-file") {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .usage("--custom-words-file: cannot read '\(path)'")
        }
        options.customWords += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    if let text = parsed.value("roi") { options.regionOfInterest = try parseRegion(text) }
    options.includeSymbols = parsed.flag("symbols")
    options.autoOrientation = parsed.flag("auto-orientation")
    options.languageCorrection = parsed.flag("no-language-correction") ? false : nil
    if let text = parsed.value("minimum-text-height") {
        guard let value = Float(text), (0...1).contains(value) else {
            throw .usage("--minimum-text-height takes a fraction 0...1, not '\(text)'")
        }
        options.minimumTextHeight = value
    }
    options.detectEntities = parsed.flag("entities")
    options.waitForSteady = parsed.flag("wait-for-steady")
    options.recognizeUnchanged = parsed.flag("recognize-unchanged")
    return options
}

/// `--capture` goals: entity kinds by name, `re:PATTERN` for a pattern (goals `re1`, `re2`, … in
/// order), each with `--confirmations` (else `confirmations`).
func parseCaptureGoals(_ parsed: ParsedCommandLine, confirmations: Int, endWhenCaptured: Bool) throws(CLIFailure)
    -> [CaptureGoal]
{
    let count: Int
    do {
        count = try parsed.integer("confirmations", in: 1...100) ?? confirmations
    } catch {
        throw error.failure
    }
    let goals: [CaptureGoal]
    do {
        goals = try CaptureGoal.fromCommandLine(
            parsed.values("capture"), confirmations: count, endWhenCaptured: endWhenCaptured)
    } catch {
        throw .usage(error.message)
    }
    if goals.isEmpty && parsed.isSet("confirmations") { throw .usage("--confirmations needs --capture") }
    return goals
}

/// `captured GOAL: VALUE` for each value `result` confirmed (what `recognize` and `stream` print).
func capturedLines(_ result: FrameResult) -> String {
    result.captures.filter(\.captured).map { "captured \($0.goal): \($0.value)\n" }.joined()
}

/// `x,y,w,h` in pixels, with a width and height above 0.
func parseRegion(_ text: String) throws(CLIFailure) -> Rect {
    let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map {
        Int32($0.trimmingCharacters(in: .whitespaces))
    }
    guard numbers.count == 4, let x = numbers[0], let y = numbers[1], let w = numbers[2], let h = numbers[3], w > 0,
        h > 0
    else {
        throw .usage("--roi takes x,y,w,h in pixels with w and h above 0, not '\(text)'")
    }
    return Rect(x: x, y: y, width: w, height: h)
}

/// `--orientation`: nil when not given (the server then reads a JPEG's EXIF tag).
func parseOrientation(_ parsed: ParsedCommandLine) throws(CLIFailure) -> Orientation? {
    guard let text = parsed.value("orientation") else { return nil }
    guard let orientation = Orientation(cliName: text) else {
        throw .usage(
            "--orientation takes up, up-mirrored, down, down-mirrored, left-mirrored, right, right-mirrored, left or 1...8, not '\(text)'"
        )
    }
    return orientation
}

extension Orientation {
    /// The command line's spelling: `right-mirrored`.
    var cliName: String {
        switch self {
        case .up: "up"
        case .upMirrored: "up-mirrored"
        case .down: "down"
        case .downMirrored: "down-mirrored"
        case .leftMirrored: "left-mirrored"
        case .right: "right"
        case .rightMirrored: "right-mirrored"
        case .left: "left"
        }
    }

    /// Accepts `right-mirrored`, `right_mirrored`, `ORIENTATION_RIGHT_MIRRORED`, or 1...8.
    init?(cliName text: String) {
        if let number = Int(text) {
            self.init(rawValue: number)
            return
        }
        var name = text.lowercased().replacingOccurrences(of: "_", with: "-")
        if name.hasPrefix("orientation-") { name.removeFirst("orientation-".count) }
        guard let match = Orientation.allCases.first(where: { $0.cliName == name }) else { return nil }
        self = match
    }
}
