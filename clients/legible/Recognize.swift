import Foundation
import LegibleCommandLine
import LegibleCore
import LegibleWire

/// `legible recognize FILE... | -`: each image as one frame of one session, one at a time
/// (each answered before the next is sent, so the latest-wins slot never drops one).
enum RecognizeCommand {
    static let command = Command(
        name: "recognize", abstract: "Print the text a Legible server reads in images.",
        discussion: """
            Sends each FILE as one frame of one session, waits for its result and prints it. JPEG and \
            PNG go as they are; TIFF (one frame per page), BMP, GIF, WebP, PNM and JPEG 2000 are \
            decoded with Leptonica and sent as 8-bit gray, transparency flattened onto white. The \
            format is told by the first bytes; a file that is no image is refused (exit 64). With \
            several files a progress bar runs on standard error when that is a terminal.
            """,
        options: [
            serverOption, transportOption,
        ] + tlsOptions + [
            .value(
                "format", valueName: "format",
                help:
                    "text (pages apart by form feeds), json (JSON Lines: one FrameResult per file or page in protobuf's JSON mapping, with \"file\" and \"page\") or tsv (as tesseract FILE - tsv).",
                default: "text"),
            .value(
                "annotate", valueName: "out.png",
                help:
                    "Draw the line and word boxes and each line's text over the upright image into this PNG (one file only; a multi-page TIFF's pages go to OUT-page1.png, ...)."
            ),
            .value(
                "annotate-dir", valueName: "dir",
                help:
                    "The same for many files: DIR/NAME.png per input, DIR/NAME-pageN.png per page (created if missing)."
            ),
        ] + recognitionOptions,
        arguments: [
            Argument(
                "file",
                help: "Images (JPEG, PNG, TIFF, BMP, GIF, WebP, PNM, JPEG 2000); - reads one from standard input.",
                variadic: true)
        ],
        exitCodes: standardExitCodes.map { code in
            code.code == ExitCode.failure.rawValue
                ? ExitCodeHelp(
                    code.code,
                    "Some frame failed (the reason is on standard error), or a --capture goal was not read in any image."
                )
                : code
        })

    static func run(_ parsed: ParsedCommandLine) throws(CLIFailure) -> ExitCode {
        // Everything the command line can get wrong is checked before connecting.
        let format: OutputFormat
        do {
            format = OutputFormat(
                rawValue: try parsed.choice("format", from: OutputFormat.allCases.map(\.rawValue)) ?? "text")!
        } catch {
            throw error.failure
        }
        var options = try parseRecognitionOptions(parsed)
        options.captureGoals = try parseCaptureGoals(parsed, confirmations: 1, endWhenCaptured: false)
        var captured: Set<String> = []
        let orientation = try parseOrientation(parsed)
        let addresses = try serverAddresses(parsed)
        if parsed.positionals.filter({ $0 == "-" }).count > 1 {
            throw .usage("- (standard input) can be read once only")
        }
        var inputs: [InputImage] = []
        for name in parsed.positionals { inputs.append(try InputImage(name)) }
        let annotations = try annotationPaths(parsed, inputs: inputs)

        let transport = try clientTransport(parsed)
        let session = try BlockingSession(
            addresses: addresses, transport: transport, tls: try clientTLS(parsed, transport: transport),
            options: options)
        let maxMessageBytes = session.started.limits.maxMessageBytes
        var progress = ProgressBar(total: inputs.count)
        defer { progress.finish() }  // also when the connection breaks (exit 2)
        var printer = ResultPrinter(format: format, fileCount: inputs.count)
        var failures = 0
        var frameID: UInt64 = 0
        // The pages of one document are all read: pages laid out alike can differ too little
        // in the skip test's thumbnail, which is meant for a camera watching one scene.
        var readingEveryPage = false
        for (index, input) in inputs.enumerated() {
            progress.update(done: index, current: input.displayName)
            let pages: PageSource
            do throws(CLIFailure) {
                pages = try PageSource(input, maxMessageBytes: maxMessageBytes)
            } catch {
                failures += 1
                progress.printError("legible: \(error.message)\n")
                continue
            }
            var pageNumber = 0
            while true {
                pageNumber += 1
                let page: InputPage
                do throws(CLIFailure) {
                    guard let next = try pages.next() else { break }
                    page = next
                } catch {
                    failures += 1
                    progress.printError("legible: \(error.message)\n")
                    let number = pages.isMultiPage || pageNumber > 1 ? pageNumber : nil
                    progress.print(printer.render(nil, file: input.name, fileIndex: index, page: number))
                    break
                }
                let name = page.number.map { "\(input.displayName) page \($0)" } ?? input.displayName
                if let number = page.number, number > 1 {
                    progress.update(done: index, current: name)
                    if !readingEveryPage, !options.recognizeUnchanged {
                        var everyPage = options
                        everyPage.recognizeUnchanged = true
                        try session.send(.update(UpdateSession(options: everyPage)))
                        readingEveryPage = true
                    }
                }
                frameID += 1
                try session.send(.frame(Frame(frameID: frameID, image: page.image, orientation: orientation)))
                let result = try awaitResult(frameID, session: session)
                progress.print(printer.render(result, file: input.name, fileIndex: index, page: page.number))
                if format == .text { progress.print(capturedLines(result)) }
                captured.formUnion(result.captures.filter(\.captured).map(\.goal))
                switch result.status {
                case .recognized, .skipped:
                    if result.status == .skipped {
                        let why =
                            result.skipReason == .moving
                            ? "the camera is moving" : "it barely differs from the previous image"
                        progress.printError(
                            "legible: \(name): skipped (\(why)); the previous text is shown. --recognize-unchanged reads every image.\n"
                        )
                    }
                    if let path = annotations[index].map({ Self.annotationPath($0, page: page.number) }) {
                        do {
                            try Annotator.annotate(page.image, sentOrientation: orientation, result: result, to: path)
                        } catch {
                            failures += 1
                            progress.printError("legible: \(name): \(error.message)\n")
                        }
                    }
                case .failed, .dropped:
                    failures += 1
                    let reason = result.error?.description ?? "dropped by the server"
                    progress.printError("legible: \(name): \(reason)\n")
                }
            }
            if readingEveryPage {
                try session.send(.update(UpdateSession(options: options)))
                readingEveryPage = false
            }
        }
        session.end()
        let missed = options.captureGoals.map(\.name).filter { !captured.contains($0) }
        if !missed.isEmpty { StandardStream.error.write("legible: not captured: \(missed.joined(separator: ", "))\n") }
        return failures == 0 && missed.isEmpty ? .success : .failure
    }

    /// Where the annotation of one page goes: `path` itself for a single image, else the page
    /// number before the extension (`boxes.png` → `boxes-page2.png`).
    static func annotationPath(_ path: String, page: Int?) -> String {
        guard let page else { return path }
        let ext = (path as NSString).pathExtension
        let stem = (path as NSString).deletingPathExtension
        return stem + "-page\(page)" + (ext.isEmpty ? "" : "." + ext)
    }

    /// Reads messages until the result of `frameID`.
    private static func awaitResult(_ frameID: UInt64, session: BlockingSession) throws(CLIFailure) -> FrameResult {
        while true {
            if case .result(let result) = try session.receive(), result.frameID == frameID { return result }
        }
    }

    /// Where each input's annotation goes (nil: none), from `--annotate` or `--annotate-dir`.
    private static func annotationPaths(_ parsed: ParsedCommandLine, inputs: [InputImage]) throws(CLIFailure)
        -> [String?]
    {
        if let path = parsed.value("annotate") {
            guard !parsed.isSet("annotate-dir") else {
                throw .usage("--annotate and --annotate-dir exclude each other")
            }
            guard inputs.count == 1 else {
                throw .usage("--annotate takes one input file; use --annotate-dir for several")
            }
            return [path]
        }
        guard let directory = parsed.value("annotate-dir") else { return inputs.map { _ in nil } }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .usage("--annotate-dir: cannot create '\(directory)'")
        }
        let paths = inputs.map { input -> String in
            let stem =
                input.name == "-"
                ? "stdin" : ((input.name as NSString).lastPathComponent as NSString).deletingPathExtension
            return (directory as NSString).appendingPathComponent(stem + ".png")
        }
        if let twice = Dictionary(grouping: paths, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw .usage("--annotate-dir: two inputs would both write \(twice)")
        }
        return paths
    }
}
