/// The result tree of one frame, shaped as ML Kit's `Text` → `TextBlock` → `TextLine` →
/// `TextElement` → `TextSymbol` (and, in document mode, blocks → paragraphs → words).
///
/// Every frame is in pixels of the upright full image. Parents compose their text from their
/// children: asking Tesseract for each level's text costs far more than one word walk.
public struct RecognizedText: Sendable, Hashable, Codable {
    /// The lines joined with newlines.
    public var text: String
    public var blocks: [TextBlock]
    /// The upright image's size.
    public var imageWidth: Int
    public var imageHeight: Int
    /// Phone numbers, addresses, URLs, dates and card numbers found in the lines (when asked).
    public var entities: [Entity]

    public init(
        text: String = "", blocks: [TextBlock] = [], imageWidth: Int = 0, imageHeight: Int = 0, entities: [Entity] = []
    ) {
        self.text = text
        self.blocks = blocks
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.entities = entities
    }

    /// Every line of every block, in reading order.
    public var lines: [TextLine] { blocks.flatMap(\.lines) }
}

public struct TextBlock: Sendable, Hashable, Codable {
    public var text: String
    public var frame: Rect
    public var confidence: Float
    public var recognizedLanguages: [String]
    public var lines: [TextLine]
    public var paragraphs: [TextParagraph]

    public init(
        text: String, frame: Rect, confidence: Float, recognizedLanguages: [String], lines: [TextLine],
        paragraphs: [TextParagraph] = []
    ) {
        self.text = text
        self.frame = frame
        self.confidence = confidence
        self.recognizedLanguages = recognizedLanguages
        self.lines = lines
        self.paragraphs = paragraphs
    }

    public var cornerPoints: [Point] { frame.cornerPoints }
}

public struct TextLine: Sendable, Hashable, Codable {
    public var text: String
    public var frame: Rect
    public var confidence: Float
    public var recognizedLanguages: [String]
    public var elements: [TextElement]
    /// Stable across the frames of one scene (set by the session's tracker; 0 until then).
    public var trackID: UInt64
    /// Consecutive results in which this line had the same text.
    public var stableFrames: UInt32

    /// The rotated box when the line is not axis-aligned (a detected line); `frame` holds it.
    public var quad: Quad?
    /// The script whose recognizer read the line, and that recognizer's model (`eng`,
    /// `jpn_vert`, `ch_PP-OCRv4_rec`); nil when a recognizer of several models read it.
    public var script: Script?
    public var model: String?

    public init(
        text: String, frame: Rect, confidence: Float, recognizedLanguages: [String], elements: [TextElement],
        trackID: UInt64 = 0, stableFrames: UInt32 = 0, quad: Quad? = nil, script: Script? = nil, model: String? = nil
    ) {
        self.quad = quad
        self.script = script
        self.model = model
        self.text = text
        self.frame = frame
        self.confidence = confidence
        self.recognizedLanguages = recognizedLanguages
        self.elements = elements
        self.trackID = trackID
        self.stableFrames = stableFrames
    }

    public var cornerPoints: [Point] { quad?.points ?? frame.cornerPoints }
}

public struct TextParagraph: Sendable, Hashable, Codable {
    public var text: String
    public var frame: Rect
    public var confidence: Float
    public var recognizedLanguages: [String]
    public var words: [TextElement]
    public var recognizedBreak: RecognizedBreak?

    public init(
        text: String, frame: Rect, confidence: Float, recognizedLanguages: [String], words: [TextElement],
        recognizedBreak: RecognizedBreak? = nil
    ) {
        self.text = text
        self.frame = frame
        self.confidence = confidence
        self.recognizedLanguages = recognizedLanguages
        self.words = words
        self.recognizedBreak = recognizedBreak
    }

    public var cornerPoints: [Point] { frame.cornerPoints }
}

public struct TextElement: Sendable, Hashable, Codable {
    public var text: String
    public var frame: Rect
    public var confidence: Float
    public var recognizedLanguages: [String]
    public var symbols: [TextSymbol]
    public var candidates: [Candidate]
    public var recognizedBreak: RecognizedBreak?
    /// The rotated box when the word is not axis-aligned (read from a detected line); `frame`
    /// holds it.
    public var quad: Quad?
    /// Whether the reader's dictionary holds the word (Tesseract's `WordIsFromDictionary`); nil
    /// from a reader without one. `eng` reads "HÔPITAL" as "HOPITAL", a word outside it.
    public var isDictionaryWord: Bool?

    public init(
        text: String, frame: Rect, confidence: Float, recognizedLanguages: [String], symbols: [TextSymbol] = [],
        candidates: [Candidate] = [], recognizedBreak: RecognizedBreak? = nil, quad: Quad? = nil,
        isDictionaryWord: Bool? = nil
    ) {
        self.quad = quad
        self.isDictionaryWord = isDictionaryWord
        self.text = text
        self.frame = frame
        self.confidence = confidence
        self.recognizedLanguages = recognizedLanguages
        self.symbols = symbols
        self.candidates = candidates
        self.recognizedBreak = recognizedBreak
    }

    public var cornerPoints: [Point] { quad?.points ?? frame.cornerPoints }
}

public struct TextSymbol: Sendable, Hashable, Codable {
    public var text: String
    public var frame: Rect
    public var confidence: Float
    public var candidates: [Candidate]
    /// Document mode: the break after a word's last symbol.
    public var recognizedBreak: RecognizedBreak?
    /// The rotated box when the symbol is not axis-aligned; `frame` holds it.
    public var quad: Quad?

    public init(
        text: String, frame: Rect, confidence: Float, candidates: [Candidate] = [],
        recognizedBreak: RecognizedBreak? = nil, quad: Quad? = nil
    ) {
        self.quad = quad
        self.text = text
        self.frame = frame
        self.confidence = confidence
        self.candidates = candidates
        self.recognizedBreak = recognizedBreak
    }

    public var cornerPoints: [Point] { quad?.points ?? frame.cornerPoints }
}

/// An alternative reading of an element or symbol.
public struct Candidate: Sendable, Hashable, Codable {
    public var text: String
    public var confidence: Float
    public init(text: String, confidence: Float) {
        self.text = text
        self.confidence = confidence
    }
}

/// What follows (or, with `isPrefix`, precedes) a word or paragraph.
public struct RecognizedBreak: Sendable, Hashable, Codable {
    public enum Kind: Int, Sendable, Hashable, Codable {
        case unknown = 0
        case space, sureSpace, eolSureSpace, hyphen, lineBreak
    }
    public var kind: Kind
    public var isPrefix: Bool
    public init(kind: Kind, isPrefix: Bool = false) {
        self.kind = kind
        self.isPrefix = isPrefix
    }
}

extension RecognizedText {
    /// The same tree with every frame mapped by `map` (from the read image into the upright
    /// full image).
    public func mapped(by map: CoordinateMap) -> RecognizedText {
        guard !map.isIdentity else { return self }
        var copy = self
        copy.blocks = blocks.map { block in
            var block = block
            block.frame = map.map(block.frame)
            block.lines = block.lines.map { line in
                var line = line
                line.frame = map.map(line.frame)
                line.quad = line.quad?.mapped(by: map)
                line.elements = line.elements.map { $0.mapped(by: map) }
                return line
            }
            block.paragraphs = block.paragraphs.map { paragraph in
                var paragraph = paragraph
                paragraph.frame = map.map(paragraph.frame)
                paragraph.words = paragraph.words.map { $0.mapped(by: map) }
                return paragraph
            }
            return block
        }
        return copy
    }

    /// Every word of the tree (text mode's elements, or document mode's words).
    public var words: [TextElement] {
        blocks.flatMap { block in
            block.lines.isEmpty ? block.paragraphs.flatMap(\.words) : block.lines.flatMap(\.elements)
        }
    }
}

extension Collection<TextElement> {
    /// The words' mean confidence, each word weighted by its characters (at least one), so that
    /// a line's long words count for more than a stray mark; 0 for no words.
    public var characterWeightedConfidence: Float {
        let weights = map { Float(Swift.max(1, $0.text.count)) }
        let total = weights.reduce(0, +)
        guard total > 0 else { return 0 }
        return zip(self, weights).reduce(Float(0)) { $0 + $1.0.confidence * $1.1 } / total
    }
}

extension TextElement {
    fileprivate func mapped(by map: CoordinateMap) -> TextElement {
        var copy = self
        copy.frame = map.map(frame)
        copy.quad = quad?.mapped(by: map)
        copy.symbols = symbols.map { symbol in
            var symbol = symbol
            symbol.frame = map.map(symbol.frame)
            symbol.quad = symbol.quad?.mapped(by: map)
            return symbol
        }
        return copy
    }
}

extension RecognizedText {
    /// The tree without the lines lower than `minimumHeight` pixels (Vision's
    /// `minimumTextHeight`): each block keeps its other lines, each paragraph the words of
    /// the lines kept, and every text is rebuilt; emptied blocks and paragraphs go.
    public func droppingLines(lowerThan minimumHeight: Int32) -> RecognizedText {
        guard minimumHeight > 0 else { return self }
        var copy = self
        var texts: [String] = []
        copy.blocks = blocks.compactMap { block in
            var block = block
            let dropped = block.lines.filter { $0.frame.height < minimumHeight }
            guard !dropped.isEmpty else {
                texts.append(block.text)
                return block
            }
            let droppedFrames = Set(dropped.flatMap { $0.elements.map(\.frame) })
            block.lines.removeAll { $0.frame.height < minimumHeight }
            block.paragraphs = block.paragraphs.compactMap { paragraph in
                var paragraph = paragraph
                paragraph.words.removeAll { droppedFrames.contains($0.frame) }
                guard !paragraph.words.isEmpty else { return nil }
                let kept = block.lines.filter { line in line.elements.contains { paragraph.words.contains($0) } }
                paragraph.text = ReadingOrder.text(ofOrdered: kept)
                paragraph.frame = paragraph.words.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) }
                return paragraph
            }
            guard !block.lines.isEmpty else { return nil }
            block.text = ReadingOrder.text(ofOrdered: block.lines)
            block.frame = block.lines.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) }
            texts.append(block.text)
            return block
        }
        copy.text = texts.joined(separator: "\n")
        return copy
    }
}
