public import LegibleCore

/// The second reader of a line: the engine reads each detected line, and a line it reads with
/// a confidence under `below` (ACCURATE) or `fastBelow` (FAST) is read again by `second`, the
/// more confident reading kept. Whole frames and columns are the engine's alone.
///
/// The second reader is another model of the same script: PP-OCRv6's recognizer for Latin,
/// Chinese and Japanese (`PPOCRLineRecognizer`; on the corpus's tune part it read the receipts
/// and scenes Tesseract was unsure of better), Tesseract's `hin` beside `Devanagari`. Both
/// live on the engine's thread and share its cancellation.
public final class SecondOpinionRecognizer: Recognizer {
    public let base: any Recognizer
    public let second: any Recognizer
    public let below: Float
    /// FAST asks the second reader too, about lines read with a confidence under this (0: never).
    public let fastBelow: Float
    /// The base model reads Latin without accents (`eng`): at every level, a line with a word
    /// outside its dictionary is also read by the second model, whose reading is kept when it
    /// has the same letters with accents ("HOPITAL" → "HÔPITAL").
    public let checksAccents: Bool

    public var key: EngineKey { base.key }
    public var cancellation: RecognitionCancellation { base.cancellation }
    public var readsTallLinesAsColumns: Bool { base.readsTallLinesAsColumns }

    public init(
        base: any Recognizer, second: any Recognizer, below: Float, fastBelow: Float = 0, checksAccents: Bool = false
    ) {
        self.base = base
        self.second = second
        self.below = below
        self.fastBelow = fastBelow
        self.checksAccents = checksAccents
    }

    public func recognize(_ image: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError) -> RecognizedText
    {
        try base.recognize(image, request: request, job: job, deadline: deadline)
    }

    public func recognizeLine(_ strip: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError) -> TextLine?
    {
        let first = try base.recognizeLine(strip, request: request, job: job, deadline: deadline)
        guard !request.defersSecondReading else { return first }
        return try secondReading(of: strip, first: first, request: request, job: job, deadline: deadline)
    }

    public func secondReadingThreshold(at level: RecognitionLevel) -> Float {
        level == .accurate ? below : fastBelow
    }

    public func secondReading(
        of strip: GrayImage, first: TextLine?, request: RecognitionRequest, job: UInt64, deadline: Duration?
    ) throws(LegibleError) -> TextLine? {
        let unsure = (first?.confidence ?? 0) < secondReadingThreshold(at: request.level)
        let accentsInDoubt = Self.accentsInDoubt(first, checksAccents: checksAccents)
        guard !request.lineIsColumn, unsure || accentsInDoubt else { return first }
        guard let other = try second.recognizeLine(strip, request: request, job: job, deadline: deadline) else {
            return first
        }
        guard let first else { return other }
        if accentsInDoubt, LatinAccents.differOnlyInAccents(other.text, first.text) {
            // Both models read the same letters: the accents are the second's to add.
            var restored = other
            restored.confidence = max(first.confidence, other.confidence)
            return restored
        }
        guard unsure else { return first }
        return other.confidence > first.confidence && !Self.dropsLetters(other, of: first) ? other : first
    }

    /// Whether a second reader that `checksAccents` reads `line` again for its accents
    /// (`secondReading`; `ScriptRouting` asks the same of a line read script by script).
    static func accentsInDoubt(_ line: TextLine?, checksAccents: Bool) -> Bool {
        checksAccents && line.map(mayHaveLostAccents) == true
    }

    /// Whether a reading by a model without accents may have lost some: it has a word of three
    /// or more letters that the model's dictionary does not hold — letters only, but for
    /// punctuation around it and an apostrophe or hyphen inside. English lines rarely do ("Order
    /// 58213 ships Monday": numbers are not words; "ops@example.com" is an address), French,
    /// Spanish or German ones almost always ("HOPITAL", "pequeno", "cété,").
    static func mayHaveLostAccents(_ line: TextLine) -> Bool {
        line.elements.contains { word in
            guard word.isDictionaryWord == false else { return false }
            let core = word.text.drop(while: \.isPunctuation).reversed().drop(while: \.isPunctuation)
            return core.filter(\.isLetter).count >= 3 && core.allSatisfy { $0.isLetter || "'’-".contains($0) }
        }
    }

    /// A second reading keeps at least this share of the letters and digits of a first reading
    /// read with `sureFirstReading` or more.
    public static let keptLetterShare = 0.9
    /// A first reading this sure stands alone at FAST (`ScriptRouting.sureConfidence`); an
    /// unsurer one often has stray letters a second reader rightly leaves out (receipts).
    public static let sureFirstReading: Float = 0.8

    /// Whether `second` lost letters a sure `first` read: a CTC reader leaves out the letters
    /// it has no class for and stays sure (PP-OCRv6 read "Tiếng Việt có dấu" as "Ting Vit có
    /// du" at 0.999, where Tesseract's `Latin` had read "Tičng Viêt có dãu" at 0.84).
    static func dropsLetters(_ second: TextLine, of first: TextLine) -> Bool {
        guard first.confidence >= sureFirstReading else { return false }
        func letters(_ line: TextLine) -> Int { line.text.filter { $0.isLetter || $0.isNumber }.count }
        return Double(letters(second)) < keptLetterShare * Double(letters(first))
    }
}
