// legible-floor: the floor for Legible's benchmarks.
//
// Decodes one JPEG once, builds the recognizer stack legibled's engines read with (the same
// `PipelineFactory`, on legibled's defaults: Tesseract, and with --detector the PP-OCRv4 line
// detector and the second reader of unsure lines), and recognizes the same image warmup +
// repeat times in-process, with no server, socket or protobuf in the way. Whatever a benchmark
// of the server measures above these numbers is the server's own cost.
//
// One JSON line on stdout; it does not depend on the locale (numbers are formatted by hand).
// Run it with OMP_THREAD_LIMIT=1 in the environment: libgomp reads it only at load time.

internal import Glibc
internal import LegibleCommandLine
internal import LegibleCore
internal import LegibleDetection
internal import LegibleEngine
internal import LegibleEntities
internal import LegibleImaging
internal import LegibleReading
internal import LegibleServer
internal import LegibleTesseract

let command = Command(
    name: "legible-floor", abstract: "Recognize one JPEG repeatedly in-process and report the timings.",
    options: [
        .value(
            "tessdata", valueName: "dir", help: "The folder of the .traineddata files.",
            default: TesseractModels.defaultTessdata),
        .value(
            "model", valueName: "name", help: "The Tesseract model(s), such as eng, Latin or eng+Devanagari.",
            default: "eng"),
        .value("repeat", valueName: "n", help: "Timed recognitions.", default: "10"),
        .value("warmup", valueName: "k", help: "Untimed recognitions before them.", default: "1"),
        .value(
            "psm", valueName: "psm", help: "Page segmentation: 3, 4, 6 or 11.",
            default: "as legibled chooses for MODE_TEXT"),
        .value("level", valueName: "level", help: "fast or accurate.", default: "fast"),
        .flag(
            "detector",
            help:
                "Read as legibled's default text mode does: PP-OCRv4 finds the lines, each is read alone (--psm is then ignored)."
        ),
        .value(
            "detector-max-side", valueName: "px", help: "The detector's input, long side (legibled's default).",
            default: "960"),
        .value("strip-height", valueName: "px", help: "With --detector: the height lines are read at.", default: "48"),
        .value(
            "second-reading", valueName: "on|off",
            help:
                "With --detector: lines are read again as legibled reads them (FAST's unsure lines and eng's lost accents by PP-OCR's model); off reads each line once.",
            default: "on"),
        .flag(
            "decode-each",
            help:
                "Decode the JPEG again before every recognition, timed with it (a server decodes every frame it receives; by default the floor decodes once)."
        ),
        .flag("print-text", help: "Also write the recognized text to stderr."),
        .value(
            "capture", valueName: "goal",
            help:
                "Also time finding this capture goal's values (phone, email, url, date, card or re:PATTERN) in the last result, as an engine does for a session with goals: the median of 1,000 runs, in microseconds (capture_us); repeatable.",
            repeatable: true),
        .flag(
            "orientations",
            help:
                "Instead: time turning the decoded JPEG upright in all 8 orientations, Legible's copy against Leptonica's rotations (and the decode, quality measure and thumbnail every frame gets)."
        ),
    ],
    arguments: [Argument("file", help: "The JPEG file to recognize.")])

struct Options {
    var tessdata: String
    var model: String
    var repeatCount: Int
    var warmup: Int
    var segmentation: PageSegmentation?
    var level: RecognitionLevel
    var printText: Bool
    var orientations: Bool
    var detector: Bool
    var detectorMaxSide: Int
    var stripHeight: Int
    var secondReading: Bool
    var decodeEach: Bool
    var captureGoals: [CaptureGoal]
    var file: String?
}

/// `--capture` goals, spelled and named as `legible --capture` takes them.
func captureGoals(_ texts: [String]) -> [CaptureGoal] {
    do throws(LegibleError) {
        return try CaptureGoal.fromCommandLine(texts)
    } catch {
        fail(error.message, code: .usage)
    }
}

func parse(_ arguments: [String]) -> Options {
    let parsed = command.parseOrExit(arguments)
    do throws(CommandLineError) {
        var segmentation: PageSegmentation?
        if parsed.isSet("psm") {
            guard let chosen = PageSegmentation(rawValue: try parsed.integer("psm", in: 3...11)!) else {
                fail("--psm takes 3, 4, 6 or 11", code: .usage)
            }
            segmentation = chosen
        }
        let levels: [String: RecognitionLevel] = ["fast": .fast, "accurate": .accurate]
        guard let level = levels[parsed.value("level") ?? "fast"] else {
            fail("--level takes fast or accurate", code: .usage)
        }
        return Options(
            tessdata: parsed.value("tessdata")!, model: parsed.value("model")!,
            repeatCount: try parsed.integer("repeat", in: 1...Int.max)!, warmup: try parsed.integer("warmup")!,
            segmentation: segmentation, level: level, printText: parsed.flag("print-text"),
            orientations: parsed.flag("orientations"), detector: parsed.flag("detector"),
            detectorMaxSide: try parsed.integer("detector-max-side", in: 32...4096) ?? 960,
            stripHeight: try parsed.integer("strip-height", in: 8...400) ?? 48,
            secondReading: onOff(parsed.value("second-reading") ?? "on", "second-reading"),
            decodeEach: parsed.flag("decode-each"), captureGoals: captureGoals(parsed.values("capture")),
            file: parsed.positionals.first)
    } catch {
        if case .usage(let message, _) = error { fail(message, code: .usage) }
        fail("\(error)", code: .usage)
    }
}

func onOff(_ value: String, _ name: String) -> Bool {
    switch value {
    case "on": return true
    case "off": return false
    default: fail("--\(name) takes on or off", code: .usage)
    }
}

func write(_ fd: Int32, _ text: String) {
    (fd == 1 ? StandardStream.output : StandardStream.error).write(text)
}

func fail(_ message: String) -> Never { fail(message, code: .failure) }

func readFile(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { fail("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { fail("cannot read \(path): \(String(cString: strerror(errno)))") }
        if n == 0 { break }
        data.append(contentsOf: chunk[0..<n])
    }
    return data
}

/// VmRSS of this process in kB, from /proc/self/status; 0 when unreadable.
func residentKilobytes() -> Int {
    let status = String(decoding: readFile("/proc/self/status"), as: UTF8.self)
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// `value` with three decimals, independent of the C locale.
func decimal(_ value: Double) -> String {
    let thousandths = Int64((value * 1000).rounded())
    let fraction = String(thousandths % 1000)
    return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}

/// CPU time of the whole process so far, in ms (every thread's).
func processCPUMilliseconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1e6
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
guard let file = options.file else { fail("missing argument <file>", code: .usage) }
if options.orientations {
    do {
        try timeOrientations(readFile(file), runs: options.repeatCount)
    } catch {
        fail("\(error)")
    }
    exit(0)
}

/// legibled's defaults, with this run's tessdata, detector choice and second readings.
func serverConfiguration(_ options: Options) -> ServerConfiguration {
    var configuration = ServerConfiguration()
    configuration.tessdata = options.tessdata
    configuration.detector = options.detector ? .ppOCRv4 : .tesseract
    configuration.detectorMaxSide = options.detectorMaxSide
    if !options.secondReading {
        configuration.secondOpinionBelow = 0
        configuration.fastSecondOpinionBelow = 0
        configuration.checksAccents = false
    }
    return configuration
}

var image: GrayImage
let engine: any Recognizer
let lineReader: LineReader
var lineDetector: TextDetector?
var residentBeforeEngine = 0
let jpeg = EncodedImage(encoding: .jpeg, data: readFile(file))
let decoder: FrameImager
do {
    decoder = try FrameImager()
    image = try decoder.decode(jpeg, maxPixels: 100_000_000)
    residentBeforeEngine = residentKilobytes()
    let settings = serverConfiguration(options).pipelineSettings
    engine = try PipelineFactory(settings: settings).makeRecognizer(
        for: EngineKey(models: options.model.split(separator: "+").map(String.init)),
        cancellation: RecognitionCancellation())
    (engine as? TesseractEngine)?.segmentationOverride = options.segmentation
    lineReader = LineReader(
        rectifier: LineRectifier(targetHeight: Double(options.stripHeight)),
        minimumConfidence: settings.minimumLineConfidence)
    if let (model, detectorOptions) = settings.detector {
        lineDetector = try TextDetector(modelPath: model, options: detectorOptions)
        try lineDetector!.warmUp(sizes: [(image.width, image.height)])
    }
} catch {
    fail("\(error)")
}

let clock = ContinuousClock()
var times: [Double] = []
/// With --detector: the detection's share of each run.
var detectTimes: [Double] = []
var text = ""
var lastResult = RecognizedText()
/// CPU time of the timed runs.
var cpuMilliseconds = 0.0
do {
    for run in 0..<(options.warmup + options.repeatCount) {
        let start = clock.now
        let cpuStart = processCPUMilliseconds()
        if options.decodeEach { image = try decoder.decode(jpeg, maxPixels: 100_000_000) }
        let request = RecognitionRequest(level: options.level)
        let result: RecognizedText
        if let lineDetector {
            // As FramePipeline reads a frame in text mode: the lines, or the page when they make one.
            let lines = try lineDetector.detectLines(inPadded: image, level: options.level)
            if run >= options.warmup { detectTimes.append(milliseconds(clock.now - start)) }
            if LineReader.looksLikePage(lines, width: image.width, height: image.height) {
                var page = request
                page.readsAsPage = true
                result = try engine.recognize(image, request: page, job: 0, deadline: nil)
            } else {
                result = try lineReader.read(image, lines: lines, recognizer: engine, request: request)
            }
        } else {
            result = try engine.recognize(image, request: request, job: 0, deadline: nil)
        }
        let elapsed = milliseconds(clock.now - start)
        if run >= options.warmup {
            times.append(elapsed)
            cpuMilliseconds += processCPUMilliseconds() - cpuStart
        }
        text = result.text
        lastResult = result
    }
} catch {
    fail("\(error)")
}

/// With --capture: µs to find the goals' values in the last result (median of 1,000), and how many.
var captureMicros: Double?
var capturesFound = 0
if !options.captureGoals.isEmpty {
    let finder: CaptureFinder
    do {
        finder = try CaptureFinder(goals: options.captureGoals)
    } catch {
        fail(error.message, code: .usage)
    }
    var runs: [Double] = []
    for _ in 0..<1000 {
        let start = clock.now
        capturesFound = finder.candidates(in: lastResult).count
        runs.append(milliseconds(clock.now - start) * 1000)
    }
    captureMicros = runs.sorted()[runs.count / 2]
}

let sorted = times.sorted()
let median =
    sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
// Nearest rank: the smallest time with at least 90 % of the runs at or below it.
let p90 = sorted[(sorted.count * 9 + 9) / 10 - 1]
if options.printText { write(2, text + "\n") }
write(
    1,
    "{\"file\":\(JSONText.quoted(file)),\"model\":\(JSONText.quoted(options.model)),\"width\":\(image.width),"
        + "\"height\":\(image.height),\"psm\":\(lineDetector != nil ? PageSegmentation.singleLine.rawValue : options.segmentation?.rawValue ?? PageSegmentation.choose(mode: .text, hasRegionOfInterest: false, models: engine.key.models).rawValue),\"detector\":\(lineDetector != nil),\"second_reading\":\(lineDetector != nil && options.secondReading),\"decode_each\":\(options.decodeEach),\"runs\":\(times.count),"
        + "\"median_ms\":\(decimal(median)),\"mean_ms\":\(decimal(times.reduce(0, +) / Double(times.count))),"
        + "\"cpu_ms\":\(decimal(cpuMilliseconds / Double(times.count))),\"p90_ms\":\(decimal(p90)),\"min_ms\":\(decimal(sorted[0])),"
        + (detectTimes.isEmpty
            ? ""
            : "\"detect_median_ms\":\(decimal(detectTimes.sorted()[detectTimes.count / 2])),")
        + (captureMicros.map { "\"capture_us\":\(decimal($0)),\"captures_found\":\(capturesFound)," } ?? "")
        + "\"word_images_uncompressed\":\(TesseractEngine.wordImagesUncompressed),\"openmp_regions_inline\":\(TesseractEngine.openMPRegionsInline),\"text_chars\":\(text.count),\"rss_kb\":\(residentKilobytes()),\"rss_before_engine_kb\":\(residentBeforeEngine)}\n"
)
