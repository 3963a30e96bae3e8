import LegibleCommandLine
import LegibleCore
import LegibleWire

/// `--format`: how `recognize` prints each file's result on standard output.
///
/// - `text`: the recognized text; with several files each is preceded by `==> FILE <==`
///   (and a blank line between files), as `head` does. The pages of a multi-page TIFF are
///   separated by a form feed (`\f`), as tesseract separates them.
/// - `json`: JSON Lines: one `FrameResult` object per file (per page) and line, in protobuf's
///   JSON mapping (see `ResultJSON`), with a leading `"file"` member naming the input (`-` for
///   standard input) and, for a file with several pages, a `"page"` member (from 1) after it.
/// - `tsv`: exactly `tesseract FILE - tsv`, pages numbered in `page_num` under one header; with
///   several files each file's table (header included) follows a `# FILE` comment line.
enum OutputFormat: String, CaseIterable {
    case text, json, tsv
}

/// Prints results as `--format` says, keeping what is printed once per file (the
/// `==> FILE <==` or `# FILE` line, the TSV header) and the page separators.
struct ResultPrinter {
    let format: OutputFormat
    let fileCount: Int
    /// Files whose output has begun.
    private var filesStarted = 0
    /// The input (by its index) whose output has begun last.
    private var currentFile: Int?

    init(format: OutputFormat, fileCount: Int) {
        self.format = format
        self.fileCount = fileCount
    }

    /// What to print for one page of input `fileIndex` named `file`: `result` is the server's
    /// answer, nil when there is none (the page could not be sent). `page` is nil for a file
    /// with one image. A page with no text to show still gets its form feed in `text`, so
    /// that a file's text splits into exactly one part per page.
    mutating func render(_ result: FrameResult?, file: String, fileIndex: Int, page: Int?) -> String {
        let read = result.map { $0.status == .recognized || $0.status == .skipped } ?? false
        switch format {
        case .json:
            guard let result, case .object(let members) = ResultJSON.frameResult(result) else { return "" }
            var prefix: [(String, JSONValue)] = [("file", .string(file))]
            if let page { prefix.append(("page", .integer(Int64(page)))) }
            return JSONValue.object(prefix + members).text + "\n"
        case .text:
            let later = (page ?? 1) > 1
            guard read || later else { return "" }
            var out = start(fileIndex, file: file, header: { "==> \($0) <==\n" })
            if later { out += "\u{0C}" }
            if let text = result?.text?.text, read, !text.isEmpty { out += text + "\n" }
            return out
        case .tsv:
            guard read, let result else { return "" }
            let first = currentFile != fileIndex
            let out = start(fileIndex, file: file, header: { "# \($0)\n" })
            return out
                + TesseractTSV.render(result.text ?? RecognizedText(), page: page ?? 1, withHeader: first)
        }
    }

    /// The file's heading when its output begins here and several files are read (a blank
    /// line before every heading but the first in `text`).
    private mutating func start(_ fileIndex: Int, file: String, header: (String) -> String) -> String {
        guard currentFile != fileIndex else { return "" }
        currentFile = fileIndex
        filesStarted += 1
        guard fileCount > 1 else { return "" }
        return (format == .text && filesStarted > 1 ? "\n" : "") + header(file)
    }
}
