import LegibleCore
import Testing

@testable import LegibleTesseract

@Suite struct VerticalTextRecognizerTests {
    @Test func aStripTurnsBackIntoItsUprightColumn() {
        // A 3 x 2 strip: the column's first pixel row is the strip's left column, read upward.
        let strip = GrayImage(width: 3, height: 2, bytesPerRow: 4, pixels: [1, 2, 3, 0, 4, 5, 6, 0])
        let column = VerticalTextRecognizer.upright(strip)
        #expect(column.width == 2 && column.height == 3)
        #expect(column.pixels == [4, 1, 5, 2, 6, 3])
    }

    @Test func onlyModelsWithAVerticalCounterpartHaveOne() {
        #expect(VerticalTextRecognizer.verticalModel(of: "jpn") == "jpn_vert")
        #expect(VerticalTextRecognizer.verticalModel(of: "eng") == nil)
    }
}
