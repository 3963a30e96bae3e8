import LegibleCore
import Testing

@testable import LegibleTesseract

@Suite("Candidates, breaks, spacing and segmentation")
struct RecognitionPiecesTests {
    @Test func symbolSharesAreALikelihoodSplitBestFirst() {
        let choices = [
            SymbolChoice(text: "l", rating: 1), SymbolChoice(text: "I", rating: 1.6931472),
            SymbolChoice(text: "1", rating: 30),
        ]
        let candidates = CandidateRanking.symbolCandidates(choices, limit: 2)
        #expect(candidates.map(\.text) == ["l", "I"])
        // exp(-1) : exp(-1.69) is 2 : 1; the third is negligible.
        #expect(abs(candidates[0].confidence - 2.0 / 3) < 0.001)
        #expect(abs(candidates[1].confidence - 1.0 / 3) < 0.001)
        #expect(CandidateRanking.symbolCandidates([], limit: 3).isEmpty)
    }

    @Test func wordCandidatesAreTheLikeliestSpellings() {
        let symbols: [[SymbolChoice]] = [
            [SymbolChoice(text: "c", rating: 1), SymbolChoice(text: "e", rating: 2)],
            [SymbolChoice(text: "a", rating: 1)],
            [SymbolChoice(text: "t", rating: 1), SymbolChoice(text: "l", rating: 1.5)],
        ]
        let words = CandidateRanking.wordCandidates(symbols, limit: 3)
        #expect(words.map(\.text) == ["cat", "cal", "eat"])
        let confidences = words.map(\.confidence)
        #expect(confidences == confidences.sorted(by: >))
        #expect(confidences.reduce(0, +) <= 1.0001)
        #expect(CandidateRanking.wordCandidates(symbols, limit: 10).count == 4)  // 2 x 1 x 2 spellings
    }

    @Test func cjkSpacesGoButHangulAndLatinKeepTheirs() {
        #expect(CJKSpacing.normalized("東京 駅 の 出口") == "東京駅の出口")
        #expect(CJKSpacing.normalized("欢迎 光临 北京\n") == "欢迎光临北京")
        #expect(CJKSpacing.normalized("서울역 출구는") == "서울역 출구는")
        #expect(CJKSpacing.normalized("  Order 58213 ") == "Order 58213")
        #expect(CJKSpacing.normalized("東京 Tower 駅") == "東京 Tower 駅")
    }

    @Test func segmentationFollowsModeRegionAndScript() {
        #expect(PageSegmentation.choose(mode: .text, hasRegionOfInterest: false, models: ["eng"]) == .sparseText)
        #expect(PageSegmentation.choose(mode: .text, hasRegionOfInterest: true, models: ["eng"]) == .singleBlock)
        #expect(PageSegmentation.choose(mode: .document, hasRegionOfInterest: false, models: ["eng"]) == .auto)
        #expect(PageSegmentation.choose(mode: .text, hasRegionOfInterest: false, models: ["kor"]) == .singleColumn)
        #expect(
            PageSegmentation.choose(mode: .document, hasRegionOfInterest: false, models: ["eng", "Hangul"])
                == .singleColumn)
    }

    @Test func documentBreaksComeFromWhereWordsSit() {
        var tree = TreeBuilder(document: true, keepSymbols: true)
        func word(_ text: String, x: Int32, y: Int32) {
            tree.openWord(
                text: nil, frame: Rect(x: x, y: y, width: Int32(text.count) * 10, height: 20), confidence: 1,
                language: "en")
            for (index, character) in text.enumerated() {
                tree.addSymbol(
                    TextSymbol(
                        text: String(character), frame: Rect(x: x + Int32(index) * 10, y: y, width: 10, height: 20),
                        confidence: 1))
            }
            tree.closeWord()
        }
        tree.beginLine(text: "one two      wide distri-")
        word("one", x: 0, y: 0)
        word("two", x: 40, y: 0)
        word("wide", x: 110, y: 0)  // a gap of 40 px after "two": more than 0.9 x 20
        word("distri-", x: 155, y: 0)
        tree.beginLine(text: "bution")
        word("bution", x: 0, y: 30)
        tree.closeParagraph()
        let text = tree.finish(width: 300, height: 60)
        let words = text.blocks[0].paragraphs[0].words
        #expect(words.map { $0.recognizedBreak?.kind } == [.space, .sureSpace, .space, .hyphen, .lineBreak])
        #expect(
            words.map { $0.symbols.last?.recognizedBreak?.kind } == [.space, .sureSpace, .space, .hyphen, .lineBreak])
        #expect(words[0].symbols.first?.recognizedBreak == nil)
        #expect(text.blocks[0].lines.map(\.text) == ["one two      wide distri-", "bution"])
    }

    /// Tesseract's boxes for `東京駅前店` read as one line (measured, crop coordinates): the
    /// first word and its last symbol reach to the line's end.
    @Test func aFirstWordSpanningItsLineIsCutWhereTheNextBegins() {
        func symbol(_ text: String, _ left: Int32, _ right: Int32) -> TextSymbol {
            TextSymbol(text: text, frame: Rect(left: left, top: 13, right: right, bottom: 51), confidence: 1)
        }
        var words = [
            TextElement(
                text: "東京", frame: Rect(left: 12, top: 13, right: 208, bottom: 51), confidence: 1,
                recognizedLanguages: []),
            TextElement(
                text: "駅", frame: Rect(left: 106, top: 9, right: 141, bottom: 68), confidence: 1,
                recognizedLanguages: []),
            TextElement(
                text: "前", frame: Rect(left: 140, top: 9, right: 181, bottom: 68), confidence: 1,
                recognizedLanguages: []),
        ]
        words[0].symbols = [symbol("東", 12, 48), symbol("京", 52, 208)]
        words[1].symbols = [symbol("駅", 106, 141)]
        words[2].symbols = [symbol("前", 140, 181)]
        let trimmed = TreeBuilder.trimmedOverreach(words)
        #expect(trimmed.map(\.frame.maxX) == [106, 141, 181])  // 駅's 1 px overlap with 前 stays
        #expect(trimmed[0].symbols.map(\.frame.maxX) == [48, 106])
        // A column: the first word reaching down the whole column is cut at the second.
        let column = [
            TextElement(
                text: "本", frame: Rect(left: 12, top: 13, right: 49, bottom: 325), confidence: 1,
                recognizedLanguages: []),
            TextElement(
                text: "日", frame: Rect(left: 0, top: 108, right: 53, bottom: 168), confidence: 1,
                recognizedLanguages: []),
            TextElement(
                text: "の", frame: Rect(left: 0, top: 168, right: 53, bottom: 198), confidence: 1,
                recognizedLanguages: []),
        ]
        #expect(TreeBuilder.trimmedOverreach(column).map(\.frame.maxY) == [108, 168, 198])
    }
}
