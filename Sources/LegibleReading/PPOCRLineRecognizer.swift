public import LegibleCore
public import LegibleDetection

/// A recognizer whose detected lines are read by PP-OCRv4's recognition model
/// (`LineTextRecognizer`) and whose whole frames — document mode, a page, `--detector
/// tesseract` — by the Tesseract engine it wraps. It is the Chinese script's recognizer by
/// default (`legibled --pp-ocr-scripts`): on the same detected lines of the corpus's tune part
/// it read Chinese far better than Tesseract's `HanS` (see the README).
///
/// Both handles live on the engine's thread, as any recognizer's do.
public final class PPOCRLineRecognizer: Recognizer {
    public let base: any Recognizer
    private let model: LineTextRecognizer

    public var key: EngineKey { base.key }
    public var cancellation: RecognitionCancellation { base.cancellation }
    /// PP-OCR's model reads a column turned on its side (its training data has them).
    public var readsTallLinesAsColumns: Bool { true }

    public init(base: any Recognizer, model: LineTextRecognizer) {
        self.base = base
        self.model = model
    }

    /// The characters a reader of `script` may write, for `LineTextRecognizer(keeping:)`: a
    /// model that reads Han, kana and Latin alike, reading a Latin engine's line, must not
    /// answer it in Han.
    public static func characters(of script: Script) -> (String) -> Bool {
        { WrittenScript.writes($0, as: script) }
    }

    public func recognize(_ image: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError) -> RecognizedText
    {
        try base.recognize(image, request: request, job: job, deadline: deadline)
    }

    /// The line as the model reads it: elements split at spaces, each element's box the run of
    /// its characters along the strip and the rows where its ink is; symbols only when asked for.
    public func recognizeLine(_ strip: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError) -> TextLine?
    {
        cancellation.begin(job)
        if cancellation.isCancelled { throw LegibleError(.cancelled, "the recognition was cancelled") }
        let characters = try model.read(strip, alternatives: request.maxCandidates)
        var line = Self.line(characters, in: strip, request: request)
        line?.model = model.name
        line?.script = base.key.models.count == 1 ? ModelCatalog.script(ofModel: base.key.models[0]) : nil
        return line
    }

    /// A `TextLine` from the characters read in `strip`; nil when they hold no text.
    static func line(_ characters: [LineTextRecognizer.Character], in strip: GrayImage, request: RecognitionRequest)
        -> TextLine?
    {
        var words: [[LineTextRecognizer.Character]] = [[]]
        for character in characters {
            if character.text.allSatisfy(\.isWhitespace) {
                if !(words.last?.isEmpty ?? true) { words.append([]) }
            } else {
                words[words.count - 1].append(character)
            }
        }
        let elements = words.filter { !$0.isEmpty }.map { word in element(word, in: strip, request: request) }
        guard !elements.isEmpty else { return nil }
        var text = elements[0].text
        for (previous, next) in zip(elements, elements.dropFirst()) {
            text += (ReadingOrder.needsSpace(between: previous.text, and: next.text) ? " " : "") + next.text
        }
        let confidence = elements.characterWeightedConfidence
        let frame = elements.dropFirst().reduce(elements[0].frame) { $0.union($1.frame) }
        return TextLine(
            text: text, frame: frame, confidence: confidence,
            recognizedLanguages: Array(Set(elements.flatMap(\.recognizedLanguages))).sorted(), elements: elements)
    }

    private static func element(
        _ word: [LineTextRecognizer.Character], in strip: GrayImage, request: RecognitionRequest
    )
        -> TextElement
    {
        let span = Int(word[0].left.rounded(.down))..<Int(word[word.count - 1].right.rounded(.up))
        let ink =
            strip.inkBox(columns: span)
            ?? Rect(x: Int32(span.lowerBound), y: 0, width: Int32(span.count), height: Int32(strip.height))
        let (left, top, right, bottom) = (Int(ink.x), Int(ink.y), Int(ink.maxX), Int(ink.maxY))
        func rect(_ x0: Int, _ x1: Int) -> Rect {
            let (x0, x1) = (max(left, x0), min(right, x1))
            return Rect(x: Int32(x0), y: Int32(top), width: Int32(max(1, x1 - x0)), height: Int32(max(1, bottom - top)))
        }
        let text = word.map(\.text).joined()
        let confidence = word.map(\.confidence).reduce(0, +) / Float(word.count)
        let symbols =
            request.includeSymbols
            ? word.map { character in
                TextSymbol(
                    text: character.text,
                    frame: rect(Int(character.left.rounded(.down)), Int(character.right.rounded(.up))),
                    confidence: character.confidence,
                    candidates: character.alternatives.map { Candidate(text: $0.text, confidence: $0.confidence) })
            } : []
        let candidates = request.maxCandidates > 0 ? [Candidate(text: text, confidence: confidence)] : []
        return TextElement(
            text: text, frame: rect(left, right), confidence: confidence,
            recognizedLanguages: [languageTag(text)], symbols: symbols, candidates: candidates)
    }

    /// `und-Hans` for a word with Han characters, else `und-Latn` (the model reads no other script).
    static func languageTag(_ word: String) -> String {
        word.unicodeScalars.contains { $0.properties.isIdeographic } ? "und-Hans" : "und-Latn"
    }
}
