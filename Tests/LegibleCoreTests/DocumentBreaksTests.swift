import LegibleCore
import Testing

/// Document mode's paragraphs and breaks for lines read one by one (`RecognizedText.paragraphed`).
@Suite struct DocumentBreaksTests {
    /// A line of `words` 20 px high, each word 10 px per letter, `gaps` px apart.
    func line(_ words: [String], y: Int32, gaps: [Int32]) -> TextLine {
        var x: Int32 = 0
        var elements: [TextElement] = []
        for (index, word) in words.enumerated() {
            let symbols = word.map {
                TextSymbol(text: String($0), frame: Rect(x: 0, y: y, width: 10, height: 20), confidence: 0.9)
            }
            elements.append(
                TextElement(
                    text: word, frame: Rect(x: x, y: y, width: 10 * Int32(word.count), height: 20), confidence: 0.9,
                    recognizedLanguages: ["en"], symbols: symbols))
            x += 10 * Int32(word.count) + (index < gaps.count ? gaps[index] : 0)
        }
        return TextLine(
            text: words.joined(separator: " "), frame: Rect(x: 0, y: y, width: x, height: 20), confidence: 0.9,
            recognizedLanguages: ["en"], elements: elements)
    }

    func text(_ blocks: [[TextLine]]) -> RecognizedText {
        RecognizedText(
            text: "",
            blocks: blocks.map {
                TextBlock(text: "", frame: $0[0].frame, confidence: 0.9, recognizedLanguages: ["en"], lines: $0)
            })
    }

    @Test func eachBlockIsAParagraphWithCloudVisionsBreaks() throws {
        let first = [
            line(["Opening", "hours"], y: 0, gaps: [6]), line(["Mon-", "Fri", "9-17"], y: 30, gaps: [6, 40]),
        ]
        let second = [line(["Closed", "Sunday"], y: 100, gaps: [6])]
        let shaped = text([first, second]).paragraphed(keepSymbols: true)
        #expect(shaped.blocks.map(\.paragraphs.count) == [1, 1])
        let paragraph = try #require(shaped.blocks[0].paragraphs.first)
        #expect(paragraph.text == "Opening hours\nMon- Fri 9-17")
        #expect(paragraph.recognizedBreak?.kind == .lineBreak)
        #expect(paragraph.recognizedLanguages == ["en"])
        // A wide gap (40 px, over 0.9 of the 20 px words) is a sure space; a line's end a sure
        // space at the end of a line, the paragraph's end a line break.
        #expect(
            paragraph.words.map(\.recognizedBreak?.kind) == [.space, .eolSureSpace, .space, .sureSpace, .lineBreak])
        #expect(paragraph.words.last?.symbols.last?.recognizedBreak?.kind == .lineBreak)
        // The block's lines carry the same breaks.
        #expect(shaped.blocks[0].lines[1].elements.last?.recognizedBreak?.kind == .lineBreak)
        #expect(shaped.blocks[1].paragraphs[0].words.map(\.recognizedBreak?.kind) == [.space, .lineBreak])
    }

    /// A line of one word starting at `x`.
    func cell(_ word: String, x: Int32, y: Int32) -> TextLine {
        let frame = Rect(x: x, y: y, width: 10 * Int32(word.count), height: 20)
        return TextLine(
            text: word, frame: frame, confidence: 0.9, recognizedLanguages: ["en"],
            elements: [TextElement(text: word, frame: frame, confidence: 0.9, recognizedLanguages: ["en"])])
    }

    @Test func aTablesCellsInOneRowEndWithASureSpaceAndReadAsARow() throws {
        let lines = [
            cell("Milk", x: 0, y: 0), cell("2.99", x: 300, y: 1), cell("Bread", x: 0, y: 28),
            cell("3.49", x: 300, y: 28),
        ]
        let shaped = text([lines]).paragraphed(keepSymbols: false)
        let paragraph = try #require(shaped.blocks[0].paragraphs.first)
        #expect(paragraph.text == "Milk 2.99\nBread 3.49")
        #expect(
            paragraph.words.map { $0.recognizedBreak?.kind } == [.sureSpace, .eolSureSpace, .sureSpace, .lineBreak])
    }

    @Test func aLineEndingWithAHyphenAndSymbolsLeftOutUnlessAskedFor() throws {
        let shaped = text([[line(["inter-"], y: 0, gaps: []), line(["national"], y: 30, gaps: [])]])
            .paragraphed(keepSymbols: false)
        let words = try #require(shaped.blocks.first?.paragraphs.first?.words)
        #expect(words.map(\.recognizedBreak?.kind) == [.hyphen, .lineBreak])
        #expect(words.allSatisfy { $0.symbols.isEmpty })
    }

    @Test func blocksThatHaveParagraphsAreLeftAsTheyAre() {
        var page = text([[line(["Page", "text"], y: 0, gaps: [6])]])
        let own = TextParagraph(
            text: "Page text", frame: page.blocks[0].frame, confidence: 0.5, recognizedLanguages: [], words: [])
        page.blocks[0].paragraphs = [own]
        #expect(page.paragraphed(keepSymbols: true) == page)
    }
}
