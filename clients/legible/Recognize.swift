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
            Sends each FILE (JPEG or PNG, told apart by their first bytes) as one frame of one session, \
            waits for its result and prints it. With several files a progress bar runs on standard \
            error when that is a terminal.
            """,
        options: [
            serverOption,
            .value(
                "format", valueName: "format",
                help:
                    "text, json (JSON Lines, one FrameResult per file, protocol field names) or tsv (as tesseract FILE - tsv).",
                default: "text"),
            .value(
                "annotate", valueName: "out.png",
                help:
                    "Draw the line and word boxes and each line's text over the upright image into this PNG (one file only)."
            ),
            .value(
                "annotate-dir", valueName: "dir",
                help: "The same for many files: DIR/NAME.png per input (created if missing)."),
        ] + recognitionOptions,
        arguments: [
            Argument("file", help: "JPEG or PNG images; - reads one image from standard input.", variadic: true)
        ],
        exitCodes: standardExitCodes)

    static func run(_ parsed: ParsedCommandLine) throws(CLIFailure) -> ExitCode {
        // Everything the command line can get wrong is checked before connecting.
        let format: OutputFormat
        do {
            format = OutputFormat(
                rawValue: try parsed.choice("format", from: OutputFormat.allCases.map(\.rawValue)) ?? "text")!
        } catch {
            throw error.failure
        }
        let options = try parseRecognitionOptions(parsed)
        let orientation = try parseOrientation(parsed)
        let addresses = try serverAddresses(parsed)
        if parsed.positionals.filter({ $0 == "-" }).count > 1 {
            throw .usage("- (standard input) can be read once only")
        }
        var inputs: [InputImage] = []
        for name in parsed.positionals { inputs.append(try InputImage(name)) }
        let annotations = try annotationPaths(parsed, inputs: inputs)

        let session = try BlockingSession(addresses: addresses, options: options)
        let maxMessageBytes = session.started.limits.maxMessageBytes
        var progress = ProgressBar(total: inputs.count)
        defer { progress.finish() }  // also when the connection breaks (exit 2)
        var failures = 0
        var printed = 0
        for (index, input) in inputs.enumerated() {
            progress.update(done: index, current: input.displayName)
            let image: EncodedImage
            do throws(CLIFailure) {
                let data = try input.read()
                // The frame's own fields take a few bytes beside the image.
                if maxMessageBytes > 0, UInt64(data.count) + 64 > maxMessageBytes {
                    throw CLIFailure(
                        .failure,
                        "\(input.name): \(data.count) bytes is over the server's message limit of \(maxMessageBytes) bytes"
                    )
                }
                image = EncodedImage(encoding: input.encoding, data: data)
            } catch {
                failures += 1
                progress.printError("legible: \(error.message)\n")
                continue
            }
            let frameID = UInt64(index + 1)
            try session.send(.frame(Frame(frameID: frameID, image: image, orientation: orientation)))
            let result = try awaitResult(frameID, session: session)
            switch result.status {
            case .recognized, .skipped:
                if result.status == .skipped {
                    let why =
                        result.skipReason == .moving
                        ? "the camera is moving" : "it barely differs from the previous image"
                    progress.printError(
                        "legible: \(input.displayName): skipped (\(why)); the previous text is shown. --recognize-unchanged reads every image.\n"
                    )
                }
                progress.print(format.render(result, file: input.name, index: printed, fileCount: inputs.count))
                printed += 1
                if let path = annotations[index] {
                    do {
                        try Annotator.annotate(image, sentOrientation: orientation, result: result, to: path)
                    } catch {
                        failures += 1
                        progress.printError("legible: \(input.displayName): \(error.message)\n")
                    }
                }
            case .failed, .dropped:
                failures += 1
                let reason = result.error?.description ?? "dropped by the server"
                progress.printError("legible: \(input.displayName): \(reason)\n")
                if format == .json {
                    progress.print(format.render(result, file: input.name, index: printed, fileCount: inputs.count))
                }
            }
        }
        session.end()
        return failures == 0 ? .success : .failure
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
