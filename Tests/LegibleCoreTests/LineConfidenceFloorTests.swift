import LegibleCore
import Testing

struct LineConfidenceFloorTests {
    private func line(model: String?, script: Script? = nil) -> TextLine {
        TextLine(
            text: "x", frame: Rect(x: 0, y: 0, width: 10, height: 10), confidence: 0.3, recognizedLanguages: [],
            elements: [], script: script, model: model)
    }

    @Test func devanagariLinesHaveTheirOwnFloorByDefault() {
        let floor = LineConfidenceFloor.default
        #expect(floor.floor(for: line(model: "Devanagari")) == 0.1)
        #expect(floor.floor(for: line(model: "hin")) == 0.1)
        #expect(floor.floor(for: line(model: "eng")) == 0.5)
        // PP-OCR's lines name their script, not a Tesseract model.
        #expect(floor.floor(for: line(model: "ch_PP-OCRv4_rec", script: .devanagari)) == 0.1)
        #expect(floor.floor(for: line(model: nil)) == 0.5)
    }

    /// A line's confidence against its floor is its words' weighted by their characters: a
    /// stray mark read unsure does not sink a long word read surely.
    @Test func wordsWeighByTheirCharacters() {
        func word(_ text: String, _ confidence: Float) -> TextElement {
            TextElement(
                text: text, frame: Rect(x: 0, y: 0, width: 10, height: 10), confidence: confidence,
                recognizedLanguages: [])
        }
        #expect(abs([word("ab", 0.9), word("|", 0.3)].characterWeightedConfidence - 0.7) < 1e-6)
        #expect([word("", 0.4)].characterWeightedConfidence == 0.4)
        #expect([TextElement]().characterWeightedConfidence == 0)
    }

    @Test func parsesWhatItPrints() throws {
        #expect(try LineConfidenceFloor(parsing: LineConfidenceFloor.default.description) == .default)
        #expect(LineConfidenceFloor.default.description == "0.5,devanagari=0.1")
        #expect(try LineConfidenceFloor(parsing: "0.3") == LineConfidenceFloor(standard: 0.3))
        #expect(
            try LineConfidenceFloor(parsing: "korean=0.4,0.6")
                == LineConfidenceFloor(standard: 0.6, byScript: [.korean: 0.4]))
        #expect(
            try LineConfidenceFloor(parsing: "latin=0.2") == LineConfidenceFloor(standard: 0.5, byScript: [.latin: 0.2])
        )
    }

    @Test(arguments: ["", "1.5", "klingon=0.3", "devanagari=", "0.5,,0.2", "-0.1"])
    func refusesWhatIsNotAFloor(_ text: String) {
        #expect {
            _ = try LineConfidenceFloor(parsing: text)
        } throws: { error in
            (error as? LegibleError)?.code == .invalidArgument
                && (error as? LegibleError)?.message.contains("--min-line-confidence") == true
        }
    }
}
