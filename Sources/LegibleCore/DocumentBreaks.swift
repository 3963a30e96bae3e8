/// Document mode's paragraphs and breaks, as Cloud Vision's `DetectedBreak`, from where each
/// word sits — the same for Tesseract's page layout (`TreeBuilder`) and for lines read one by
/// one and put in blocks by `ReadingOrder` (`RecognizedText.paragraphed`):
/// - the last word of a paragraph: `LINE_BREAK`;
/// - the last word of another line: `HYPHEN` when it ends with a hyphen, else `EOL_SURE_SPACE`,
///   or `SURE_SPACE` when the next line continues its row (a table's next cell);
/// - a word followed in its line by a gap wider than `sureSpaceGap` × the line's median word
///   height: `SURE_SPACE` (a wide gap, as between table cells or label fields);
/// - any other word: `SPACE`.
/// A word's break is also set on its last symbol.
public enum DocumentBreaks {
    /// Gap between words, relative to the line's median word height, from which a space is
    /// "sure" (about two ordinary spaces in DejaVu and Noto at camera sizes).
    public static let sureSpaceGap = 0.9

    /// SPACE or SURE_SPACE between the words of one line; the last word's break EOL_SURE_SPACE
    /// or HYPHEN (a paragraph's last line gets LINE_BREAK from `paragraph`).
    public static func assignWithinLine(_ words: inout [TextElement]) {
        guard !words.isEmpty else { return }
        let heights = words.map(\.frame.height).sorted()
        let sureGap = Double(heights[heights.count / 2]) * sureSpaceGap
        for index in words.indices {
            let kind: RecognizedBreak.Kind
            if index == words.count - 1 {
                kind = words[index].text.hasSuffix("-") ? .hyphen : .eolSureSpace
            } else {
                let gap = Double(words[index + 1].frame.x - words[index].frame.maxX)
                kind = gap > sureGap ? .sureSpace : .space
            }
            setBreak(kind, on: &words[index])
        }
    }

    /// The last word of each line that the next line continues in its row (a table's cells,
    /// a receipt's item and price, read one by one): `SURE_SPACE`, as the paragraph's text has
    /// a space there, not a line break.
    public static func assignBetweenCellsOfARow(_ lines: inout [TextLine]) {
        for index in lines.indices.dropLast()
        where ReadingOrder.continuesRow(lines[index], with: lines[index + 1]) {
            guard let last = lines[index].elements.indices.last,
                lines[index].elements[last].recognizedBreak?.kind == .eolSureSpace
            else { continue }
            setBreak(.sureSpace, on: &lines[index].elements[last])
        }
    }

    private static func setBreak(_ kind: RecognizedBreak.Kind, on element: inout TextElement) {
        let value = RecognizedBreak(kind: kind)
        element.recognizedBreak = value
        if !element.symbols.isEmpty { element.symbols[element.symbols.count - 1].recognizedBreak = value }
    }

    /// The paragraph of `lines` (their breaks within each line already set): its last word's
    /// break becomes LINE_BREAK, in `lines` too; without `keepSymbols` the words' symbols go.
    public static func paragraph(
        of lines: inout [TextLine], confidence: Float, languages: [String], keepSymbols: Bool
    ) -> TextParagraph? {
        guard let last = lines.indices.last(where: { !lines[$0].elements.isEmpty }) else { return nil }
        setBreak(.lineBreak, on: &lines[last].elements[lines[last].elements.count - 1])
        if !keepSymbols {
            for line in lines.indices {
                for index in lines[line].elements.indices { lines[line].elements[index].symbols = [] }
            }
        }
        return TextParagraph(
            text: ReadingOrder.text(ofOrdered: lines),
            frame: lines.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) },
            confidence: confidence, recognizedLanguages: languages, words: lines.flatMap(\.elements),
            recognizedBreak: RecognizedBreak(kind: .lineBreak))
    }
}

extension RecognizedText {
    /// Document mode's shape for lines read one by one: each block (`ReadingOrder` cuts
    /// blocks at paragraph gaps) one paragraph, with its breaks. Blocks that already have
    /// paragraphs (Tesseract's page layout) are left as they are.
    public func paragraphed(keepSymbols: Bool) -> RecognizedText {
        var copy = self
        for index in copy.blocks.indices where copy.blocks[index].paragraphs.isEmpty {
            var block = copy.blocks[index]
            for line in block.lines.indices { DocumentBreaks.assignWithinLine(&block.lines[line].elements) }
            DocumentBreaks.assignBetweenCellsOfARow(&block.lines)
            let words = block.lines.flatMap(\.elements)
            let confidence = words.isEmpty ? 0 : words.reduce(Float(0)) { $0 + $1.confidence } / Float(words.count)
            var languages: [String] = []
            for language in block.lines.flatMap(\.recognizedLanguages) where !languages.contains(language) {
                languages.append(language)
            }
            if let paragraph = DocumentBreaks.paragraph(
                of: &block.lines, confidence: confidence, languages: languages, keepSymbols: keepSymbols)
            {
                block.paragraphs = [paragraph]
            }
            copy.blocks[index] = block
        }
        return copy
    }
}
