import LegibleCommandLine
import LegibleCore
import LegibleWire

/// `--format`: how `recognize` prints each file's result on standard output.
///
/// - `text`: the recognized text; with several files each is preceded by `==> FILE <==`
///   (and a blank line between files), as `head` does.
/// - `json`: JSON Lines: one `FrameResult` object per file and line (see `ResultJSON`),
///   with a leading `"file"` member naming the input (`-` for standard input).
/// - `tsv`: exactly `tesseract FILE - tsv`; with several files each file's table (header
///   included) follows a `# FILE` comment line.
enum OutputFormat: String, CaseIterable {
    case text, json, tsv

    /// The text `recognize` prints for one file's result; `index` counts files from 0.
    func render(_ result: FrameResult, file: String, index: Int, fileCount: Int) -> String {
        let text = result.text ?? RecognizedText()
        switch self {
        case .text:
            var out = ""
            if fileCount > 1 { out += (index > 0 ? "\n" : "") + "==> \(file) <==\n" }
            if !text.text.isEmpty { out += text.text + "\n" }
            return out
        case .json:
            guard case .object(let members) = ResultJSON.frameResult(result) else { return "" }
            return JSONValue.object([("file", .string(file))] + members).text + "\n"
        case .tsv:
            return (fileCount > 1 ? "# \(file)\n" : "") + TesseractTSV.render(text)
        }
    }
}
