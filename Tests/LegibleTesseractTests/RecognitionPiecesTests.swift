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
}
