import LegibleCore
import Testing

@Suite("Models, language hints and engine keys")
struct ModelCatalogTests {
    @Test func modelNamesMapToPackagesAndTags() {
        #expect(ModelCatalog.debianPackage(for: "eng") == "tesseract-ocr-eng")
        #expect(ModelCatalog.debianPackage(for: "chi_sim") == "tesseract-ocr-chi-sim")
        #expect(ModelCatalog.debianPackage(for: "Latin") == "tesseract-ocr-script-latn")
        #expect(ModelCatalog.debianPackage(for: "HanT") == "tesseract-ocr-script-hant")
        #expect(ModelCatalog.languageTag(for: "kor") == "ko")
        #expect(ModelCatalog.languageTag(for: "Devanagari") == "und-Deva")
        #expect(
            ModelCatalog.languageTag(for: "jpn_vert") == "ja"
                && ModelCatalog.languageTag(for: "Japanese_vert") == "und-Jpan")
        #expect(ModelCatalog.script(ofModel: "Hangul") == .korean)
        #expect(ModelCatalog.script(ofModel: "eng") == .latin)
        #expect(ModelCatalog.script(ofModel: "chi_tra") == .chinese)
    }

    @Test(arguments: [
        ("en", Script.latin), ("de-CH", .latin), ("vi", .latin), ("hi", .devanagari), ("mr", .devanagari),
        ("ne", .devanagari), ("zh", .chinese), ("zh-Hant", .chinese), ("zh_TW", .chinese), ("ja", .japanese),
        ("ko-KR", .korean),
    ])
    func hintsMapToScripts(tag: String, script: Script) throws {
        #expect(try LanguageHint(tag).script == script)
    }

    @Test func unknownHintsAreErrorsNotFallbacks() {
        for tag in ["xx", "tlh", "", "-"] {
            #expect(throws: LegibleError.self) { try LanguageHint(tag) }
        }
        do {
            _ = try LanguageHint("xx")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("'xx'"))
        }
    }

    @Test func selectionResolvesScriptsAndHintsToModels() throws {
        let selection = ModelSelection()
        #expect(try selection.models(scripts: [], languageHints: []) == ["eng"])
        #expect(try selection.models(scripts: [.korean], languageHints: []) == ["kor"])
        #expect(try selection.models(scripts: [.latin], languageHints: ["de"]) == ["Latin"])
        #expect(try selection.models(scripts: [], languageHints: ["en", "hi"]) == ["eng", "Devanagari"])
        #expect(try selection.models(scripts: [.chinese], languageHints: ["zh-Hant"]) == ["HanT"])
        // A server that reads Latin with the script model keeps it for English too.
        let latin = ModelSelection(defaults: [.latin: "Latin"])
        #expect(try latin.models(scripts: [], languageHints: ["en"]) == ["Latin"])
        #expect(latin.model(for: .japanese) == "jpn")
    }

    @Test func engineKeysNormaliseTheirWords() {
        let key = EngineKey(models: ["eng"], customWords: ["b", "a", "b", ""])
        #expect(key.customWords == ["a", "b"])
        #expect(!key.isStandard)
        #expect(EngineKey(models: ["eng"]).isStandard)
        #expect(!EngineKey(models: ["eng", "Devanagari"]).isStandard)
        #expect(!EngineKey(models: ["eng"], languageCorrection: false).isStandard)
        #expect(EngineKey(models: ["eng", "Devanagari"]).modelSpec == "eng+Devanagari")
    }

    @Test func cancellationStopsOnlyTheJobItNames() {
        let cancellation = RecognitionCancellation()
        cancellation.begin(1)
        #expect(!cancellation.isCancelled)
        cancellation.cancel(1)
        #expect(cancellation.isCancelled)
        cancellation.begin(2)  // a cancel for a finished job does not stop the next
        #expect(!cancellation.isCancelled)
    }

    @Test func droppingSmallLinesRebuildsTextsAndParagraphs() {
        func word(_ text: String, y: Int32, height: Int32) -> TextElement {
            TextElement(
                text: text, frame: Rect(x: 0, y: y, width: 50, height: height), confidence: 1, recognizedLanguages: [])
        }
        let big = TextLine(
            text: "Big", frame: Rect(x: 0, y: 0, width: 50, height: 40), confidence: 1, recognizedLanguages: [],
            elements: [word("Big", y: 0, height: 40)])
        let small = TextLine(
            text: "small", frame: Rect(x: 0, y: 50, width: 50, height: 10), confidence: 1, recognizedLanguages: [],
            elements: [word("small", y: 50, height: 10)])
        let block = TextBlock(
            text: "Big\nsmall", frame: Rect(x: 0, y: 0, width: 50, height: 60), confidence: 1, recognizedLanguages: [],
            lines: [big, small],
            paragraphs: [
                TextParagraph(
                    text: "Big\nsmall", frame: Rect(x: 0, y: 0, width: 50, height: 60), confidence: 1,
                    recognizedLanguages: [],
                    words: big.elements + small.elements)
            ])
        let onlySmall = TextBlock(
            text: "small", frame: small.frame, confidence: 1, recognizedLanguages: [], lines: [small])
        let text = RecognizedText(
            text: "Big\nsmall\nsmall", blocks: [block, onlySmall], imageWidth: 100, imageHeight: 100)
        let kept = text.droppingLines(lowerThan: 20)
        #expect(kept.text == "Big")
        #expect(kept.blocks.count == 1)
        #expect(kept.blocks[0].lines.map(\.text) == ["Big"])
        #expect(kept.blocks[0].paragraphs.map(\.text) == ["Big"])
        #expect(kept.blocks[0].paragraphs[0].words.map(\.text) == ["Big"])
        #expect(text.droppingLines(lowerThan: 0) == text)
    }
}
