// legible-floor: the floor for Legible's benchmarks.
//
// Decodes one JPEG once, creates one TesseractEngine, and recognizes the same image
// warmup + repeat times in-process, with no server, socket or protobuf in the way. Whatever a
// benchmark of the server measures above these numbers is the server's own cost.
//
// One JSON line on stdout; it does not depend on the locale (numbers are formatted by hand).
// Run it with OMP_THREAD_LIMIT=1 in the environment: libgomp reads it only at load time.

internal import Glibc
internal import LegibleCore
internal import LegibleImaging
internal import LegibleTesseract

let usage = """
    OVERVIEW: Recognize one JPEG repeatedly in-process and report the timings.

    USAGE: legible-floor [--tessdata <dir>] [--model <name>] [--repeat <n>] [--warmup <k>] [--psm <psm>] [--print-text] <file>

    ARGUMENTS:
      <file>                  The JPEG file to recognize.

    OPTIONS:
      --tessdata <dir>        The folder of the .traineddata files. (default: $TESSDATA_PREFIX or
                              /usr/share/tesseract-ocr/5/tessdata)
      --model <name>          The Tesseract model, such as eng or Latin. (default: eng)
      --repeat <n>            Timed recognitions. (default: 10)
      --warmup <k>            Untimed recognitions before them. (default: 1)
      --psm <psm>             Page segmentation: 3, 6 or 11. (default: the engine's MODE_TEXT
                              default)
      --print-text            Also write the recognized text to stderr.
      -h, --help              Show help information.

    """

func write(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n <= 0 { return }
            offset += n
        }
    }
}

func fail(_ message: String, usageError: Bool = false) -> Never {
    write(2, "Error: \(message)\n")
    if usageError { write(2, "Usage: legible-floor [--tessdata <dir>] [--model <name>] [--repeat <n>] [--warmup <k>] <file>\n  See 'legible-floor --help' for more information.\n") }
    exit(usageError ? 64 : 1)
}

struct Options {
    var tessdata = TesseractModels.defaultTessdata
    var model = "eng"
    var repeatCount = 10
    var warmup = 1
    var segmentation = PageSegmentation.textDefault
    var printText = false
    var file: String?
}

func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var index = 0
    func value(_ flag: String) -> String {
        index += 1
        guard index < arguments.count else { fail("Missing value for '\(flag) <value>'", usageError: true) }
        return arguments[index]
    }
    func count(_ flag: String, minimum: Int) -> Int {
        let text = value(flag)
        guard let n = Int(text), n >= minimum else {
            fail("The value '\(text)' is invalid for '\(flag)': expected a whole number >= \(minimum)", usageError: true)
        }
        return n
    }
    while index < arguments.count {
        let argument = arguments[index]
        switch argument {
        case "-h", "--help":
            write(1, usage)
            exit(0)
        case "--tessdata": options.tessdata = value(argument)
        case "--model": options.model = value(argument)
        case "--repeat": options.repeatCount = count(argument, minimum: 1)
        case "--warmup": options.warmup = count(argument, minimum: 0)
        case "--psm":
            let text = value(argument)
            guard let psm = Int(text).flatMap(PageSegmentation.init(rawValue:)) else {
                fail("The value '\(text)' is invalid for '--psm <psm>': expected 3, 6 or 11", usageError: true)
            }
            options.segmentation = psm
        case "--print-text": options.printText = true
        default:
            if argument.hasPrefix("-") { fail("Unknown option '\(argument)'", usageError: true) }
            if options.file != nil { fail("Unexpected argument '\(argument)'", usageError: true) }
            options.file = argument
        }
        index += 1
    }
    return options
}

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

func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

/// The script a model name reads, for the engine's `script` (it does not change recognition).
func script(for model: String) -> Script {
    switch model.split(separator: "+").first.map(String.init) ?? model {
    case "jpn", "Japanese": .japanese
    case "chi_sim", "chi_tra", "HanS", "HanT": .chinese
    case "kor", "Hangul": .korean
    case "hin", "Devanagari": .devanagari
    default: .latin
    }
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
guard let file = options.file else { fail("Missing expected argument '<file>'", usageError: true) }

let image: GrayImage
let engine: TesseractEngine
do {
    let decoder = try ImageDecoder()
    image = try decoder.decode(EncodedImage(encoding: .jpeg, data: readFile(file)), maxPixels: 100_000_000)
    engine = try TesseractEngine(
        tessdata: options.tessdata, model: options.model, script: script(for: options.model),
        textSegmentation: options.segmentation)
} catch {
    fail("\(error)")
}

let clock = ContinuousClock()
var times: [Double] = []
var text = ""
do {
    for run in 0..<(options.warmup + options.repeatCount) {
        let start = clock.now
        let result = try engine.recognize(image, request: RecognitionRequest())
        let elapsed = milliseconds(clock.now - start)
        if run >= options.warmup { times.append(elapsed) }
        text = result.text
    }
} catch {
    fail("\(error)")
}

let sorted = times.sorted()
let median = sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
// Nearest rank: the smallest time with at least 90 % of the runs at or below it.
let p90 = sorted[(sorted.count * 9 + 9) / 10 - 1]
if options.printText { write(2, text + "\n") }
write(
    1,
    "{\"file\":\(jsonString(file)),\"model\":\(jsonString(options.model)),\"width\":\(image.width),"
        + "\"height\":\(image.height),\"psm\":\(options.segmentation.rawValue),\"runs\":\(times.count),"
        + "\"median_ms\":\(decimal(median)),\"p90_ms\":\(decimal(p90)),\"min_ms\":\(decimal(sorted[0])),"
        + "\"text_chars\":\(text.count),\"rss_kb\":\(residentKilobytes())}\n")
