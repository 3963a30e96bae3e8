internal import LegibleCore

/// Builds the result tree from one flat iterator walk.
///
/// The walk only ever touches the innermost open element; each parent is assembled once, when
/// it closes, from locals (docs/library-facts.md, "walking the result tree": a builder mutating nested arrays in the loop took 214 ms where
/// the raw walk took 23 ms). `close…` calls are idempotent: closing a block closes its
/// paragraph, line and word.
///
/// Breaks (document mode) as `DocumentBreaks` sets them.
struct TreeBuilder {
    let document: Bool
    /// Keep each word's symbols in the result (they are always collected to build the text
    /// and candidates when the walk is at symbol level).
    let keepSymbols: Bool
    let maxCandidates: Int

    private var blocks: [TextBlock] = []
    private var allLines: [String] = []

    // The open block.
    private var blockLines: [TextLine] = []
    private var blockParagraphs: [TextParagraph] = []
    private var blockStats = Stats()

    // The open paragraph: its lines go to the block when it closes, so the last word's break
    // can still become a line break.
    private var paragraphLines: [TextLine] = []
    private var paragraphStats = Stats()

    // The open line.
    private var lineText: String?
    private var lineWords: [TextElement] = []
    private var lineStats = Stats()

    // The open word.
    private var word: TextElement?
    private var wordLanguage: String?
    private var wordChoices: [[SymbolChoice]] = []

    init(document: Bool, keepSymbols: Bool = false, maxCandidates: Int = 0) {
        self.document = document
        self.keepSymbols = keepSymbols
        self.maxCandidates = maxCandidates
    }

    /// A line begins; `text` is Tesseract's text of the whole line (spaced as it reads it).
    mutating func beginLine(text: String) {
        closeLine()
        let trimmed = CJKSpacing.normalized(text)
        lineText = trimmed.isEmpty ? nil : trimmed
    }

    /// A word begins; `text` is nil when it is to be built from its symbols.
    mutating func openWord(
        text: String?, frame: Rect, confidence: Float, language: String?, isDictionaryWord: Bool? = nil
    ) {
        word = TextElement(
            text: text ?? "", frame: frame, confidence: confidence,
            recognizedLanguages: language.map { [$0] } ?? [], isDictionaryWord: isDictionaryWord)
        wordLanguage = language
        wordChoices = []
    }

    mutating func addSymbol(_ symbol: TextSymbol, choices: [SymbolChoice] = []) {
        guard !symbol.text.isEmpty else { return }
        var symbol = symbol
        if maxCandidates > 0 {
            symbol.candidates =
                choices.isEmpty
                ? [Candidate(text: symbol.text, confidence: symbol.confidence)]
                : CandidateRanking.symbolCandidates(choices, limit: maxCandidates)
            wordChoices.append(choices.isEmpty ? [SymbolChoice(text: symbol.text, rating: 0)] : choices)
        }
        word?.symbols.append(symbol)
        word?.text += symbol.text
    }

    mutating func closeWord() {
        guard var word else { return }
        self.word = nil
        // Tesseract can report words that are only spaces; they are not text.
        guard word.text.contains(where: { !$0.isWhitespace }) else { return }
        if maxCandidates > 0 { word.candidates = CandidateRanking.wordCandidates(wordChoices, limit: maxCandidates) }
        if !keepSymbols && !document { word.symbols = [] }
        lineWords.append(word)
        lineStats.add(word.confidence, wordLanguage)
    }

    mutating func closeLine() {
        closeWord()
        let text = lineText
        lineText = nil
        guard !lineWords.isEmpty else { return }
        lineWords = Self.trimmedOverreach(lineWords)
        if document { DocumentBreaks.assignWithinLine(&lineWords) }
        let line = TextLine(
            text: text ?? lineWords.map(\.text).joined(separator: " "),
            frame: lineWords.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) },
            confidence: lineStats.mean, recognizedLanguages: lineStats.languages, elements: lineWords)
        paragraphLines.append(line)
        paragraphStats.merge(lineStats)
        lineWords = []
        lineStats = Stats()
    }

    /// The line's words with boxes that reach over the next word's middle cut back to where
    /// it starts. Tesseract's LSTM gives the first word of a CJK line (and its last symbol)
    /// the box of the whole line — `東京` of `東京駅前店` spans to `店`, `本` of a column
    /// spans the column — and the words after it their own boxes. The axis is the line's:
    /// x for a row, y for a column (the first and last word's centres apart).
    static func trimmedOverreach(_ words: [TextElement]) -> [TextElement] {
        guard words.count > 1, let first = words.first, let last = words.last else {
            return words.map { word in
                var word = word
                word.symbols = trimmedOverreach(symbols: word.symbols, column: false)
                return word
            }
        }
        let column = abs(last.frame.midY - first.frame.midY) > abs(last.frame.midX - first.frame.midX)
        // Symbols first (the line's symbols in one run: a word's last symbol overreaches into
        // the next word), then each word's box from its symbols, or cut as the symbols are.
        let symbols = trimmedOverreach(symbols: words.flatMap(\.symbols), column: column)
        var result = words
        var offset = 0
        for index in result.indices {
            let count = result[index].symbols.count
            result[index].symbols = Array(symbols[offset..<offset + count])
            offset += count
        }
        for index in result.indices.dropLast() {
            result[index].frame = Self.cut(result[index].frame, before: result[index + 1].frame, column: column)
        }
        return result
    }

    private static func trimmedOverreach(symbols: [TextSymbol], column: Bool) -> [TextSymbol] {
        guard symbols.count > 1 else { return symbols }
        var result = symbols
        for index in result.indices.dropLast() {
            result[index].frame = cut(result[index].frame, before: result[index + 1].frame, column: column)
        }
        return result
    }

    /// `box` ending where `next` starts along the axis, when it reaches past `next`'s middle
    /// (an ordinary overlap, an italic letter's, is left alone).
    private static func cut(_ box: Rect, before next: Rect, column: Bool) -> Rect {
        if column {
            guard box.maxY > next.midY, next.y > box.y else { return box }
            return Rect(left: box.x, top: box.y, right: box.maxX, bottom: next.y)
        }
        guard box.maxX > next.midX, next.x > box.x else { return box }
        return Rect(left: box.x, top: box.y, right: next.x, bottom: box.maxY)
    }

    mutating func closeParagraph() {
        closeLine()
        guard !paragraphLines.isEmpty else { return }
        if document,
            let paragraph = DocumentBreaks.paragraph(
                of: &paragraphLines, confidence: paragraphStats.mean, languages: paragraphStats.languages,
                keepSymbols: keepSymbols)
        {
            blockParagraphs.append(paragraph)
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

/// Spaces in a line of text as the scripts write them.
///
/// Tesseract's script models (HanS, Japanese) put a space between CJK characters where the
/// language models (chi_sim, jpn) put none (docs/library-facts.md, "languages and spaces"); Chinese and Japanese are written without
/// spaces, so a space between two Han or kana characters is removed. Hangul is written with
/// spaces between words and is left alone. Leading and trailing white space goes too.
enum CJKSpacing {
    static func normalized(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == " ", let before = out.last, isHanOrKana(before) {
                var next = index
                while next < scalars.count, scalars[next] == " " { next += 1 }
                if next < scalars.count, isHanOrKana(scalars[next]) {
                    index = next
                    continue
                }
            }
            out.append(scalar)
            index += 1
        }
        let text = String(out)
        return String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    static func isHanOrKana(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3000...0x303F,  // CJK symbols and punctuation
            0x3040...0x309F,  // Hiragana
            0x30A0...0x30FF, 0x31F0...0x31FF,  // Katakana
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,  // Han
            0xFF00...0xFFEF,  // full-width forms
            0x20000...0x3134F:  // Han, supplementary planes
            return true
        default:
            return false
        }
    }
}
