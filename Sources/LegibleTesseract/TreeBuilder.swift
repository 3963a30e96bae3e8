internal import LegibleCore

/// Builds the result tree from one flat iterator walk.
///
/// The walk only ever touches the innermost open element; each parent is assembled once, when
/// it closes, from locals (NOTES: a builder mutating nested arrays in the loop took 214 ms where
/// the raw walk took 23 ms). `close…` calls are idempotent: closing a block closes its paragraph, line and word.
struct TreeBuilder {
    let document: Bool

    private var blocks: [TextBlock] = []
    private var allLines: [String] = []

    // The open block.
    private var blockLines: [TextLine] = []
    private var blockParagraphs: [TextParagraph] = []
    private var blockStats = Stats()

    // The open paragraph (document mode): its lines go to the block when it closes, so the last
    // word's break can still become a line break.
    private var paragraphLines: [TextLine] = []
    private var paragraphStats = Stats()

    // The open line.
    private var lineWords: [TextElement] = []
    private var lineStats = Stats()

    // The open word.
    private var word: TextElement?
    private var wordLanguage: String?

    init(document: Bool) {
        self.document = document
    }

    /// A word begins; `text` is nil when it is to be built from its symbols.
    mutating func openWord(text: String?, frame: Rect, confidence: Float, language: String?) {
        word = TextElement(
            text: text ?? "", frame: frame, confidence: confidence,
            recognizedLanguages: language.map { [$0] } ?? [])
        wordLanguage = language
    }

    mutating func addSymbol(_ symbol: TextSymbol) {
        guard !symbol.text.isEmpty else { return }
        word?.symbols.append(symbol)
        word?.text += symbol.text
    }

    mutating func closeWord() {
        guard let word else { return }
        self.word = nil
        // Tesseract can report words that are only spaces; they are not text.
        guard word.text.contains(where: { !$0.isWhitespace }) else { return }
        lineWords.append(word)
        lineStats.add(word.confidence, wordLanguage)
    }

    mutating func closeLine() {
        closeWord()
        guard !lineWords.isEmpty else { return }
        if document {
            for index in lineWords.indices {
                lineWords[index].recognizedBreak = RecognizedBreak(
                    kind: index == lineWords.count - 1 ? .eolSureSpace : .space)
            }
        }
        let line = TextLine(
            text: lineWords.map(\.text).joined(separator: " "),
            frame: lineWords.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) },
            confidence: lineStats.mean, recognizedLanguages: lineStats.languages, elements: lineWords)
        paragraphLines.append(line)
        paragraphStats.merge(lineStats)
        lineWords = []
        lineStats = Stats()
    }

    mutating func closeParagraph() {
        closeLine()
        guard !paragraphLines.isEmpty else { return }
        if document {
            let last = paragraphLines.count - 1
            let lastWord = paragraphLines[last].elements.count - 1
            paragraphLines[last].elements[lastWord].recognizedBreak = RecognizedBreak(kind: .lineBreak)
            let words = paragraphLines.flatMap(\.elements)
            blockParagraphs.append(
                TextParagraph(
                    text: paragraphLines.map(\.text).joined(separator: "\n"),
                    frame: paragraphLines.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) },
                    confidence: paragraphStats.mean, recognizedLanguages: paragraphStats.languages, words: words,
                    recognizedBreak: RecognizedBreak(kind: .lineBreak)))
        }
        blockLines.append(contentsOf: paragraphLines)
        blockStats.merge(paragraphStats)
        paragraphLines = []
        paragraphStats = Stats()
    }

    mutating func closeBlock() {
        closeParagraph()
        guard !blockLines.isEmpty else { return }
        let texts = blockLines.map(\.text)
        blocks.append(
            TextBlock(
                text: texts.joined(separator: "\n"),
                frame: blockLines.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) },
                confidence: blockStats.mean, recognizedLanguages: blockStats.languages, lines: blockLines,
                paragraphs: blockParagraphs))
        allLines.append(contentsOf: texts)
        blockLines = []
        blockParagraphs = []
        blockStats = Stats()
    }

    mutating func finish(width: Int, height: Int) -> RecognizedText {
        closeBlock()
        return RecognizedText(
            text: allLines.joined(separator: "\n"), blocks: blocks, imageWidth: width, imageHeight: height)
    }
}

/// The mean word confidence and the distinct languages (in order of first use) of a parent.
private struct Stats {
    private var sum: Float = 0
    private var count = 0
    private(set) var languages: [String] = []

    var mean: Float { count > 0 ? sum / Float(count) : 0 }

    mutating func add(_ confidence: Float, _ language: String?) {
        sum += confidence
        count += 1
        if let language, !languages.contains(language) { languages.append(language) }
    }

    mutating func merge(_ other: Stats) {
        sum += other.sum
        count += other.count
        for language in other.languages where !languages.contains(language) { languages.append(language) }
    }
}
