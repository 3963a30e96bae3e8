import LegibleCore
import LegibleReading
import Testing

/// A recognizer that reads every line as `text` with `confidence`, counting its reads; each
/// word listed in `outsideDictionary` is marked as its dictionary does not hold it.
private final class Scripted: Recognizer {
    let key = EngineKey(models: ["eng"])
    let cancellation = RecognitionCancellation()
    let text: String?
    let confidence: Float
    let outsideDictionary: Set<String>
    var lineReads = 0

    init(_ text: String?, confidence: Float, outsideDictionary: Set<String> = []) {
        self.text = text
        self.confidence = confidence
        self.outsideDictionary = outsideDictionary
    }

    func recognize(_ image: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError) -> RecognizedText
    {
        RecognizedText(text: "frame")
    }

    func recognizeLine(_ strip: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError) -> TextLine?
    {
        lineReads += 1
        let box = Rect(x: 0, y: 0, width: 10, height: 10)
        return text.map {
            TextLine(
                text: $0, frame: box, confidence: confidence, recognizedLanguages: [],
                elements: $0.split(separator: " ").map { word in
                    TextElement(
                        text: String(word), frame: box, confidence: confidence, recognizedLanguages: [],
                        isDictionaryWord: !outsideDictionary.contains(String(word)))
                })
        }
    }
}

@Suite struct SecondOpinionTests {
    let strip = GrayImage(width: 10, height: 10, bytesPerRow: 10, pixels: [UInt8](repeating: 255, count: 100))

    private func read(
        _ base: Scripted, _ second: Scripted, level: RecognitionLevel, column: Bool = false, below: Float = 0.8
    ) throws -> String? {
        var request = RecognitionRequest(level: level)
        request.lineIsColumn = column
        return try SecondOpinionRecognizer(base: base, second: second, below: below)
            .recognizeLine(strip, request: request, job: 1, deadline: nil)?.text
    }

    @Test func anUnsureLineTakesTheMoreConfidentReadingAtAccurate() throws {
        #expect(
            try read(Scripted("H0tel", confidence: 0.6), Scripted("Hotel", confidence: 0.9), level: .accurate)
                == "Hotel")
        #expect(
            try read(Scripted("Hotel", confidence: 0.6), Scripted("H0tel", confidence: 0.5), level: .accurate)
                == "Hotel")
        #expect(try read(Scripted(nil, confidence: 0), Scripted("Hotel", confidence: 0.7), level: .accurate) == "Hotel")
    }

    @Test func aSureLineFastAndColumnsAreTheEnginesAlone() throws {
        let second = Scripted("other", confidence: 1)
        #expect(try read(Scripted("Hotel", confidence: 0.9), second, level: .accurate) == "Hotel")
        #expect(try read(Scripted("H0tel", confidence: 0.3), second, level: .fast) == "H0tel")
        #expect(try read(Scripted("H0tel", confidence: 0.3), second, level: .accurate, column: true) == "H0tel")
        #expect(second.lineReads == 0)
    }

    @Test func aDeferredSecondReadingIsAskedOnlyThroughSecondReading() throws {
        let second = Scripted("Hotel", confidence: 0.9)
        let recognizer = SecondOpinionRecognizer(
            base: Scripted("H0tel", confidence: 0.6), second: second, below: 0.8, fastBelow: 0.5)
        var request = RecognitionRequest(level: .accurate)
        request.defersSecondReading = true
        let first = try recognizer.recognizeLine(strip, request: request, job: 1, deadline: nil)
        #expect(first?.text == "H0tel")
        #expect(second.lineReads == 0)
        #expect(recognizer.secondReadingThreshold(at: .accurate) == 0.8)
        #expect(recognizer.secondReadingThreshold(at: .fast) == 0.5)
        let later = try recognizer.secondReading(
            of: strip, first: first, request: RecognitionRequest(level: .accurate), job: 1, deadline: nil)
        #expect(later?.text == "Hotel")
        // FAST's threshold is lower: a line read at 0.6 is sure enough there.
        let fast = try recognizer.secondReading(
            of: strip, first: first, request: RecognitionRequest(level: .fast), job: 1, deadline: nil)
        #expect(fast?.text == "H0tel")
        #expect(second.lineReads == 1)
    }

    @Test func aSureReadingIsNotReplacedByOneThatLeftLettersOut() throws {
        // PP-OCRv6 has no class for ế or ệ: it leaves them out and stays sure.
        #expect(
            try read(
                Scripted("Tičng Viêt có dãu", confidence: 0.84), Scripted("Ting Vit có du", confidence: 0.999),
                level: .accurate, below: 0.95) == "Tičng Viêt có dãu")
        // An unsure first reading's stray letters are rightly left out.
        #expect(
            try read(Scripted("3.99 B iil", confidence: 0.6), Scripted("3.99 B", confidence: 0.98), level: .accurate)
                == "3.99 B")
    }

    private func readChecking(_ base: Scripted, _ second: Scripted, level: RecognitionLevel) throws -> String? {
        try SecondOpinionRecognizer(base: base, second: second, below: 0.95, fastBelow: 0.8, checksAccents: true)
            .recognizeLine(strip, request: RecognitionRequest(level: level), job: 1, deadline: nil)?.text
    }

    @Test(arguments: [RecognitionLevel.fast, .accurate])
    func aSureLineWithAWordOutsideTheDictionaryGetsItsAccentsBack(level: RecognitionLevel) throws {
        let french = Scripted("HOPITAL FRANCAIS FERME", confidence: 0.97, outsideDictionary: ["HOPITAL", "FERME"])
        #expect(
            try readChecking(french, Scripted("HÔPITAL FRANÇAIS FERMÉ", confidence: 0.9), level: level)
                == "HÔPITAL FRANÇAIS FERMÉ")
        // Other letters than the first reading's: the sure first reading stands.
        #expect(
            try readChecking(french, Scripted("HOPITAL FRANÇAIS FERMEE", confidence: 0.99), level: level)
                == "HOPITAL FRANCAIS FERME")
    }

    @Test func aLineOfDictionaryWordsNumbersAndShortWordsIsNotAskedAboutAccents() throws {
        let second = Scripted("Ordér 58213 shîps", confidence: 1)
        let english = Scripted(
            "Order 58213 ships H ops@example.com www.example.org", confidence: 0.9,
            outsideDictionary: ["58213", "H", "ops@example.com", "www.example.org"])
        #expect(try readChecking(english, second, level: .fast) == english.text)
        #expect(second.lineReads == 0)
        // Without the check (a model with accents), a sure line is the engine's alone.
        let french = Scripted("HOPITAL", confidence: 0.9, outsideDictionary: ["HOPITAL"])
        #expect(try read(french, second, level: .fast) == "HOPITAL")
        #expect(second.lineReads == 0)
    }

    @Test func readingsThatDifferOnlyInAccents() {
        #expect(
            LatinAccents.withoutAccents("HÔPITAL FRANÇAIS FERMÉ, año, Tiếng Việt")
                == "HOPITAL FRANCAIS FERME, ano, Tieng Viet")
        #expect(LatinAccents.withoutAccents("Straße Ærø e\u{0301}") == "Straße Ærø e")
        #expect(LatinAccents.differOnlyInAccents("Café à côté", "Cafe a cote"))
        #expect(LatinAccents.differOnlyInAccents("à midi", "amidi"))
        #expect(!LatinAccents.differOnlyInAccents("Cafe", "Cafe"))
        #expect(!LatinAccents.differOnlyInAccents("Caffè", "Cafe"))
        // An accent seen but misread: accented letters on both sides may differ.
        #expect(LatinAccents.differOnlyInAccents("côté", "cété"))
        #expect(!LatinAccents.differOnlyInAccents("côté", "cete"))
        #expect(!LatinAccents.differOnlyInAccents("Ordér", "Ardér"))
    }
}
