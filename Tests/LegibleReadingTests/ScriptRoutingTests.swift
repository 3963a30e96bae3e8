import LegibleCore
import Testing

@testable import LegibleReading

/// Which script's recognizer reads each line of a frame read script by script: decided from
/// the letters read and the recognizers' confidences, without any recognizer.
@Suite("Script routing")
struct ScriptRoutingTests {
    let line = DetectedLine(
        corners: [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 20), Point(x: 0, y: 20)], score: 0.9)

    func reading(_ text: String, _ confidence: Float, by script: Script, inDictionary: Bool? = nil)
        -> ScriptRouting.Reading
    {
        let element = TextElement(
            text: text, frame: Rect(x: 0, y: 0, width: 100, height: 20), confidence: confidence,
            recognizedLanguages: [], isDictionaryWord: inDictionary)
        return ScriptRouting.Reading(
            line: TextLine(
                text: text, frame: element.frame, confidence: confidence, recognizedLanguages: [], elements: [element]),
            toImage: .identity, script: script)
    }

    @Test func aSureLineInTheFirstScriptIsReadOnce() {
        var routing = ScriptRouting(scripts: [.latin, .devanagari], lines: [line])
        #expect(routing.nextScript == .latin)
        routing.record(reading("EXIT", 0.95, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["EXIT"])
    }

    @Test func anUnsureLineIsReadByTheOtherScriptAndTheSurerReadingWins() {
        var routing = ScriptRouting(scripts: [.latin, .devanagari], lines: [line, line])
        // eng reads a Devanagari sign as unsure Latin letters; the second line is English.
        routing.record(reading("uct4 Ie", 0.41, by: .latin), line: 0, by: .latin)
        routing.record(reading("EXIT", 0.93, by: .latin), line: 1, by: .latin)
        #expect(routing.nextScript == .devanagari)
        #expect(routing.lines(for: .devanagari) == [0])
        routing.record(reading("प्रवेश", 0.9, by: .devanagari), line: 0, by: .devanagari)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["प्रवेश", "EXIT"])
        #expect(routing.readings.map(\.script) == [.devanagari, .latin])
    }

    @Test func lettersOfAnotherCandidateScriptGoToThatScriptsRecognizer() {
        // Devanagari's model reads an English word confidently, in Latin letters: eng reads
        // Latin better, and its reading is not penalised as a foreign alphabet.
        var routing = ScriptRouting(scripts: [.devanagari, .latin], lines: [line])
        routing.record(reading("COFFEE", 0.9, by: .devanagari), line: 0, by: .devanagari)
        #expect(routing.nextScript == .latin)
        routing.record(reading("COFFEE", 0.88, by: .latin), line: 0, by: .latin)
        #expect(routing.readings.first?.script == .latin)
    }

    @Test func aReaderThatWritesLatinTooSettlesALineItReadsInItsOwnLetters() {
        // Devanagari's model reads the station's name unsure, in Devanagari letters: the line is
        // Devanagari, eng does not read it, and Latin's second reader is not asked.
        var routing = ScriptRouting(scripts: [.devanagari, .latin], lines: [line, line])
        routing.setSecondReadingThreshold(0.8, for: .devanagari)
        routing.record(reading("बिड्या", 0.45, by: .devanagari), line: 0, by: .devanagari)
        routing.record(reading("BIHIYA", 0.55, by: .devanagari), line: 1, by: .devanagari)
        #expect(routing.settledBy == [.devanagari, nil])
        #expect(routing.lines(for: .latin) == [1])
        routing.setSecondReadingThreshold(0.8, for: .latin)
        routing.record(reading("BIHIYA", 0.93, by: .latin), line: 1, by: .latin)
        #expect(routing.secondReaders(of: 0) == [.devanagari])
        routing.recordSecondReading(reading("fafear", 0.73, by: .latin), line: 0, by: .latin)
        #expect(routing.readings.map(\.line.text) == ["बिड्या", "BIHIYA"])
        // Read the other way round, eng's guess is first and loses to the settling reading, which
        // Latin's second reader cannot take back; under 0.4 it settles nothing.
        var latinFirst = ScriptRouting(scripts: [.latin, .devanagari], lines: [line, line])
        latinFirst.record(reading("fafear", 0.73, by: .latin), line: 0, by: .latin)
        latinFirst.record(reading("fafear", 0.73, by: .latin), line: 1, by: .latin)
        latinFirst.record(reading("बिड्या", 0.45, by: .devanagari), line: 0, by: .devanagari)
        latinFirst.record(reading("बिड्या", 0.35, by: .devanagari), line: 1, by: .devanagari)
        latinFirst.recordSecondReading(reading("fafear", 0.9, by: .latin), line: 0, by: .latin)
        #expect(latinFirst.readings.map(\.line.text) == ["बिड्या", "fafear"])
        // Korean's model writes Hangul for some Latin lines: it settles nothing.
        var korean = ScriptRouting(scripts: [.korean, .latin], lines: [line])
        korean.record(reading("서울", 0.6, by: .korean), line: 0, by: .korean)
        #expect(korean.settledBy == [nil] && korean.lines(for: .latin) == [0])
    }

    @Test func kanaMakeALineJapaneseAndKanjiAloneStayWithChinese() {
        var routing = ScriptRouting(scripts: [.chinese, .japanese, .latin], lines: [line, line])
        routing.record(reading("東京駅はこちら", 0.7, by: .chinese), line: 0, by: .chinese)
        routing.record(reading("北京市", 0.99, by: .chinese), line: 1, by: .chinese)
        #expect(routing.lines(for: .japanese) == [0])
        #expect(routing.nextScript == .japanese)
        routing.record(reading("東京駅はこちら", 0.93, by: .japanese), line: 0, by: .japanese)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.script) == [.japanese, .chinese])
    }

    @Test func kanjiReadUnsureByOneHanScriptAreReadByTheOtherToo() {
        // PP-OCR reads a Japanese line as its kanji, dropping the kana, at 0.86.
        var routing = ScriptRouting(scripts: [.latin, .chinese, .japanese], lines: [line])
        routing.record(reading("Tokvo", 0.3, by: .latin), line: 0, by: .latin)
        routing.record(reading("東京出右", 0.86, by: .chinese), line: 0, by: .chinese)
        #expect(routing.nextScript == .japanese)
        routing.record(reading("東京駅の出口は右側です", 0.95, by: .japanese), line: 0, by: .japanese)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["東京駅の出口は右側です"])
    }

    @Test func aLineNobodyReadsIsTriedByEveryScriptOnceAndLeftOut() {
        var routing = ScriptRouting(scripts: [.latin, .korean, .devanagari], lines: [line])
        routing.record(nil, line: 0, by: .latin)
        #expect(routing.nextScript == .korean)
        routing.record(nil, line: 0, by: .korean)
        #expect(routing.nextScript == .devanagari)
        routing.record(nil, line: 0, by: .devanagari)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.isEmpty)
    }

    @Test func theSecondReaderReadsOnceAfterEveryCandidateTheBestUnsureReadersOne() {
        var routing = ScriptRouting(scripts: [.latin, .devanagari, .korean], lines: [line, line])
        routing.setSecondReadingThreshold(0.8, for: .latin)
        routing.record(reading("EXIT 4", 0.6, by: .latin), line: 0, by: .latin)
        routing.record(reading("OPEN", 0.95, by: .latin), line: 1, by: .latin)
        // The unsure line goes on to the other candidates before any second reader reads it.
        #expect(routing.secondReadingLines(for: .latin).isEmpty)
        #expect(routing.nextScript == .devanagari)
        routing.setSecondReadingThreshold(0.8, for: .devanagari)
        routing.record(reading("एक", 0.3, by: .devanagari), line: 0, by: .devanagari)
        routing.setSecondReadingThreshold(0, for: .korean)
        routing.record(reading("에", 0.2, by: .korean), line: 0, by: .korean)
        // Eng's reading scored best: its second reader, and no other, reads the line; the
        // sure line is done.
        #expect(routing.nextScript == .latin)
        #expect(routing.secondReadingLines(for: .latin) == [0])
        #expect(routing.secondReadingLines(for: .devanagari).isEmpty)
        routing.recordSecondReading(reading("EXIT 4B", 0.9, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["EXIT 4B", "OPEN"])
    }

    @Test func aSureLineThatMayHaveLostItsAccentsIsAskedOfItsSecondReader() {
        var routing = ScriptRouting(scripts: [.latin, .devanagari], lines: [line, line])
        routing.setSecondReadingThreshold(0.8, checksAccents: true, for: .latin)
        routing.record(reading("HOPITAL", 0.95, by: .latin, inDictionary: false), line: 0, by: .latin)
        routing.record(reading("HOSPITAL", 0.95, by: .latin, inDictionary: true), line: 1, by: .latin)
        #expect(routing.nextScript == .latin)
        #expect(routing.secondReadingLines(for: .latin) == [0])
        // Accents given back keep the first reading's confidence, and replace it.
        routing.recordSecondReading(reading("HÔPITAL", 0.95, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["HÔPITAL", "HOSPITAL"])

        var unchecked = ScriptRouting(scripts: [.latin], lines: [line])
        unchecked.setSecondReadingThreshold(0.8, for: .latin)
        unchecked.record(reading("HOPITAL", 0.95, by: .latin, inDictionary: false), line: 0, by: .latin)
        #expect(unchecked.nextScript == nil)
    }

    @Test func aSureReadingInForeignLettersLeavesTheTurnToTheLettersOwnSecondReader() {
        // A German line in an automatic session: eng unsure, PP-OCRv4's Chinese reader sure in
        // Latin letters without their accents; the Latin second reader reads it with them.
        var routing = ScriptRouting(scripts: [.latin, .chinese], lines: [line])
        routing.setSecondReadingThreshold(0.8, for: .latin)
        routing.record(reading("Grdfse der Straf&e", 0.6, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == .chinese)
        routing.setSecondReadingThreshold(0.8, for: .chinese)
        routing.record(reading("GroBe der StraBe", 0.97, by: .chinese), line: 0, by: .chinese)
        #expect(routing.nextScript == .latin)
        #expect(routing.secondReadingLines(for: .latin) == [0])
        routing.recordSecondReading(reading("Größe der Straße", 0.99, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["Größe der Straße"])
    }

    @Test func aLineNobodyReadsIsAskedOfTheFirstScriptsSecondReader() {
        var routing = ScriptRouting(scripts: [.latin, .korean], lines: [line])
        routing.setSecondReadingThreshold(0.5, for: .latin)
        routing.record(nil, line: 0, by: .latin)
        #expect(routing.nextScript == .korean)
        routing.record(nil, line: 0, by: .korean)
        #expect(routing.nextScript == .latin)
        routing.recordSecondReading(nil, line: 0, by: .latin)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.isEmpty)
    }

    @Test func aWinnerWithoutASecondModelLeavesTheTurnToTheNextBestReading() {
        // A road sign's "56Km": kor reads "1560" at 0.79 and has no second model; eng's unsure
        // reading has one (PP-OCR reads it 0.999), so that reader reads the line once.
        var routing = ScriptRouting(scripts: [.korean, .latin], lines: [line])
        routing.setSecondReadingThreshold(0, for: .korean)
        routing.record(reading("1560", 0.79, by: .korean), line: 0, by: .korean)
        routing.setSecondReadingThreshold(0.8, for: .latin)
        routing.record(reading("56Kn", 0.7, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == .latin)
        #expect(routing.reading(of: 0, by: .latin)?.line.text == "56Kn")
        routing.recordSecondReading(reading("56Km", 0.999, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["56Km"])
    }

    @Test func sureReadingsAskNoSecondReader() {
        var routing = ScriptRouting(scripts: [.korean, .latin], lines: [line])
        routing.setSecondReadingThreshold(0, for: .korean)
        routing.record(reading("1560", 0.7, by: .korean), line: 0, by: .korean)
        routing.setSecondReadingThreshold(0.8, for: .latin)
        routing.record(reading("56Km", 0.9, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["56Km"])
    }

    @Test func besideASureReadingOnlyACloseOneIsReReadByItsSecondReader() {
        // jpn reads a Japanese sign line sure; eng's guess at it is far below: no second reader.
        var routing = ScriptRouting(scripts: [.latin, .japanese], lines: [line, line])
        routing.setSecondReadingThreshold(0.8, for: .latin)
        routing.record(reading("KRADST TORE", 0.63, by: .latin), line: 0, by: .latin)
        // "港区 MINATO CITY": eng 0.87, jpn 0.80 - close, so jpn's second reader reads it.
        routing.record(reading("@# & MINATOCITY", 0.87, by: .latin), line: 1, by: .latin)
        routing.setSecondReadingThreshold(0.8, for: .japanese)
        routing.record(reading("本日のおすすめ料理", 0.95, by: .japanese), line: 0, by: .japanese)
        #expect(routing.secondReadingLines(for: .latin).isEmpty)
        #expect(routing.nextScript == nil)
        var mixed = ScriptRouting(scripts: [.japanese, .latin], lines: [line])
        mixed.setSecondReadingThreshold(0.8, for: .japanese)
        mixed.record(reading("@港区 MINATO CITY", 0.795, by: .japanese), line: 0, by: .japanese)
        mixed.setSecondReadingThreshold(0.8, for: .latin)
        mixed.record(reading("@# & MINATOCITY", 0.87, by: .latin), line: 0, by: .latin)
        #expect(mixed.nextScript == .japanese)
        #expect(mixed.secondReadingLines(for: .japanese) == [0])
    }

    @Test func closeUnsureReadingsEachAskTheirSecondReaderAndAMixedLineKeepsItsKanji() {
        // At ACCURATE (second readers below 0.95) eng's 0.87 and jpn's 0.80 are both unsure and
        // close: both second readers read the line. eng's may write only Latin and drops 港区;
        // jpn's reading of kanji and Latin is not a foreign guess, so at equal confidence the
        // first script's stands.
        var routing = ScriptRouting(scripts: [.japanese, .latin], lines: [line])
        routing.setSecondReadingThreshold(0.95, for: .japanese)
        routing.record(reading("@港区 MINATO CITY", 0.795, by: .japanese), line: 0, by: .japanese)
        routing.setSecondReadingThreshold(0.95, for: .latin)
        routing.record(reading("@# & MINATOCITY", 0.87, by: .latin), line: 0, by: .latin)
        #expect(routing.secondReaders(of: 0) == [.japanese, .latin])
        #expect(routing.nextScript == .japanese)
        routing.recordSecondReading(reading("港区 MINATO CITY", 1.0, by: .japanese), line: 0, by: .japanese)
        #expect(routing.nextScript == .latin)
        routing.recordSecondReading(reading("MINATO CITY", 1.0, by: .latin), line: 0, by: .latin)
        #expect(routing.nextScript == nil)
        #expect(routing.readings.map(\.line.text) == ["港区 MINATO CITY"])
    }

    @Test func aReadingFarBelowTheSurestUnsureOneAsksNoSecondReader() {
        var routing = ScriptRouting(scripts: [.latin, .devanagari], lines: [line])
        routing.setSecondReadingThreshold(0.8, for: .latin)
        routing.record(reading("EXlT", 0.7, by: .latin), line: 0, by: .latin)
        routing.setSecondReadingThreshold(0.8, for: .devanagari)
        routing.record(reading("एक", 0.3, by: .devanagari), line: 0, by: .devanagari)
        #expect(routing.secondReaders(of: 0) == [.latin])
    }

    @Test func writtenScriptOfMixedText() {
        #expect(WrittenScript.dominant(in: "Open 24h") == .latin)
        #expect(WrittenScript.dominant(in: "दिल्ली मेट्रो") == .devanagari)
        #expect(WrittenScript.dominant(in: "서울역 출구 B") == .hangul)
        #expect(WrittenScript.dominant(in: "カレー") == .kana)
        #expect(WrittenScript.dominant(in: "12:30 -") == nil)
    }
}
