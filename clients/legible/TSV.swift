import Foundation
import LegibleCore

/// The result as `tesseract IMAGE - tsv` prints it, so scripts written for Tesseract's TSV
/// read Legible's unchanged.
///
/// One row per page (level 1), block (2), paragraph (3), line (4) and word (5); numbering
/// restarts below each parent as Tesseract's does; `conf` is -1 except on words, where it is
/// the word's confidence times 100 printed as C++'s `std::to_string` prints a float (6
/// decimals). Text mode has no paragraphs: each block gets one, with the block's box.
/// Document mode has no lines inside paragraphs: a word whose break ends a line
/// (EOL_SURE_SPACE, HYPHEN, LINE_BREAK) closes one, and the line's box is its words' union.
enum TesseractTSV {
    static let header =
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"

    /// The rows of one page (`page_num` = `page`), after the header line when `withHeader`
    /// (tesseract prints it once, before a multi-page TIFF's first page).
    static func render(_ text: RecognizedText, page: Int = 1, withHeader: Bool = true) -> String {
        var out = withHeader ? header : ""
        func row(
            _ level: Int, _ block: Int, _ paragraph: Int, _ line: Int, _ word: Int, _ box: Rect, _ conf: String,
            _ text: String
        ) {
            out +=
                "\(level)\t\(page)\t\(block)\t\(paragraph)\t\(line)\t\(word)\t\(box.x)\t\(box.y)\t\(box.width)\t\(box.height)\t\(conf)\t\(clean(text))\n"
        }
        row(1, 0, 0, 0, 0, Rect(x: 0, y: 0, width: Int32(text.imageWidth), height: Int32(text.imageHeight)), "-1", "")
        for (blockIndex, block) in text.blocks.enumerated() {
            let blockNumber = blockIndex + 1
            row(2, blockNumber, 0, 0, 0, block.frame, "-1", "")
            let paragraphs: [(frame: Rect, lines: [[TextElement]])]
            if block.paragraphs.isEmpty {
                paragraphs = [(block.frame, block.lines.map(\.elements))]
            } else {
                paragraphs = block.paragraphs.map { ($0.frame, splitLines($0.words)) }
            }
            for (paragraphIndex, paragraph) in paragraphs.enumerated() {
                row(3, blockNumber, paragraphIndex + 1, 0, 0, paragraph.frame, "-1", "")
                for (lineIndex, words) in paragraph.lines.enumerated() {
                    let lineBox = words.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) }
                    row(4, blockNumber, paragraphIndex + 1, lineIndex + 1, 0, lineBox, "-1", "")
                    for (wordIndex, word) in words.enumerated() {
                        row(
                            5, blockNumber, paragraphIndex + 1, lineIndex + 1, wordIndex + 1, word.frame,
                            String(format: "%f", Double(word.confidence) * 100), word.text)
                    }
                }
            }
        }
        return out
    }

    /// A paragraph's words cut into lines at the breaks that end one.
    static func splitLines(_ words: [TextElement]) -> [[TextElement]] {
        var lines: [[TextElement]] = []
        var current: [TextElement] = []
        for word in words {
            current.append(word)
            switch word.recognizedBreak?.kind {
            case .eolSureSpace?, .hyphen?, .lineBreak?:
                lines.append(current)
                current = []
            default: break
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// A tab or newline inside a word would break the table.
    private static func clean(_ text: String) -> String {
        text.contains(where: { $0 == "\t" || $0.isNewline })
            ? String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 }) : text
    }
}
