import LegibleCore
import Testing

/// A line of `text` whose box starts at (x, y), 20 px high, 10 px per character.
private func line(_ text: String, x: Int32, y: Int32, height: Int32 = 20) -> TextLine {
    let frame = Rect(x: x, y: y, width: Int32(text.count) * height / 2, height: height)
    return TextLine(
        text: text, frame: frame, confidence: 0.9, recognizedLanguages: ["en"],
        elements: [TextElement(text: text, frame: frame, confidence: 0.9, recognizedLanguages: ["en"])])
}

/// The same, turned by `degrees` about (cx, cy): a rotated quad.
private func tilted(_ text: String, x: Double, y: Double, degrees: Double, height: Double = 20) -> TextLine {
    let length = Double(text.count) * height / 2
    let radians = degrees * Double.pi / 180
    let (c, s) = (cosine(radians), sine(radians))
    func point(_ u: Double, _ v: Double) -> Point {
        Point(x: Int32((x + u * c - v * s).rounded()), y: Int32((y + u * s + v * c).rounded()))
    }
    let quad = Quad(
        topLeft: point(0, 0), topRight: point(length, 0), bottomRight: point(length, height),
        bottomLeft: point(0, height))
    return TextLine(
        text: text, frame: quad.boundingRect, confidence: 0.9, recognizedLanguages: ["en"],
        elements: [TextElement(text: text, frame: quad.boundingRect, confidence: 0.9, recognizedLanguages: ["en"])],
        quad: quad)
}

// Taylor series are plenty for the test's angles (|x| < 1).
private func sine(_ x: Double) -> Double {
    x - x * x * x / 6 + x * x * x * x * x / 120 - x * x * x * x * x * x * x / 5040
}
private func cosine(_ x: Double) -> Double { 1 - x * x / 2 + x * x * x * x / 24 - x * x * x * x * x * x / 720 }

private func texts(_ blocks: [TextBlock]) -> [[String]] { blocks.map { $0.lines.map(\.text) } }

@Suite struct ReadingOrderTests {
    @Test func twoColumnPageReadsLeftColumnThenRight() {
        // Lines at the same heights in both columns: row gaps align across the gutter.
        var lines: [TextLine] = []
        for row in 0..<6 {
            let y = Int32(100 + row * 30)
            lines.append(line("left column line number \(row)", x: 40, y: y))
            lines.append(line("right column line nr \(row)", x: 400, y: y))
        }
        lines.append(line("A title across both columns of the page", x: 60, y: 30, height: 30))
        let blocks = ReadingOrder.blocks(lines.shuffled())
        #expect(
            blocks.map(\.text).joined(separator: "\n").split(separator: "\n").map(String.init) == [
                "A title across both columns of the page"
            ] + (0..<6).map { "left column line number \($0)" } + (0..<6).map { "right column line nr \($0)" })
        #expect(blocks.count == 3)
    }

    @Test func receiptReadsRowByRowWithPricesBesideTheirItems() {
        var lines: [TextLine] = []
        let items = ["Milk", "Bread wholegrain", "Coffee beans", "Total"]
        for (row, item) in items.enumerated() {
            let y = Int32(50 + row * 28)
            lines.append(line(item, x: 20, y: y))
            lines.append(line("\(row + 2).99", x: 300, y: y + 1))
        }
        let blocks = ReadingOrder.blocks(lines.reversed())
        #expect(
            blocks.flatMap { $0.lines.map(\.text) } == [
                "Milk", "2.99", "Bread wholegrain", "3.99", "Coffee beans", "4.99", "Total", "5.99",
            ])
        // The item and its price stay two lines, and the text reads each row as one.
        #expect(blocks.map(\.text) == ["Milk 2.99\nBread wholegrain 3.99\nCoffee beans 4.99\nTotal 5.99"])
    }

    @Test func aTablesRowsReadAsRowsWithoutSpacesBetweenHanCells() {
        let lines = [
            line("代号", x: 20, y: 20), line("项目", x: 200, y: 21), line("U/L", x: 400, y: 20),
            line("ALT", x: 20, y: 48), line("谷丙转氨酶", x: 200, y: 47), line("25.6", x: 400, y: 49),
        ]
        let blocks = ReadingOrder.blocks(lines.shuffled())
        #expect(blocks.map(\.text) == ["代号项目 U/L\nALT 谷丙转氨酶 25.6"])
        #expect(blocks.flatMap(\.lines).count == 6)
    }

    @Test func textWithoutTheLinesOfADroppedRowKeepsItsRows() {
        var text = RecognizedText(
            text: "",
            blocks: ReadingOrder.blocks([
                line("Milk", x: 20, y: 50), line("2.99", x: 300, y: 51), line("small print", x: 20, y: 80, height: 8),
            ]), imageWidth: 640, imageHeight: 480)
        text = text.droppingLines(lowerThan: 10)
        #expect(text.text == "Milk 2.99")
    }

    /// A Latin line turned a quarter: its box runs down (`readingDown`) or up the image.
    private func turned(_ text: String, x: Int32, y: Int32, down: Bool) -> TextLine {
        let frame = Rect(x: x, y: y, width: 20, height: Int32(text.count) * 10)
        let quad = down ? Quad(frame).readingDown : Quad(frame).readingUp
        return TextLine(
            text: text, frame: frame, confidence: 0.9, recognizedLanguages: ["en"],
            elements: [TextElement(text: text, frame: frame, confidence: 0.9, recognizedLanguages: ["en"])],
            quad: quad)
    }

    @Test func linesTurnedAQuarterAreReadAfterTheLevelOnesEachWayItsOwnBlock() {
        var lines: [TextLine] = []
        for (row, item) in ["Grande Meal 9.90", "Bean Burrito 4.50", "Crunchy Taco 2.25"].enumerated() {
            lines.append(line(item, x: 20, y: Int32(40 + row * 28)))
        }
        // A side note reading down in two fragments beside the rows, a spine reading up.
        lines += [
            turned("THANK", x: 400, y: 20, down: true), turned("YOU", x: 401, y: 20 + 50 + 12, down: true),
            turned("POEMS", x: 360, y: 20, down: false),
        ]
        let blocks = ReadingOrder.blocks(lines.shuffled())
        #expect(
            texts(blocks) == [
                ["Grande Meal 9.90", "Bean Burrito 4.50", "Crunchy Taco 2.25"], ["THANK YOU"], ["POEMS"],
            ])
    }

    @Test func fragmentsOfOneLineAreJoined() {
        let lines = [line("HOPITAL", x: 100, y: 50), line("FRANCAIS", x: 100 + 70 + 15, y: 51)]
        let blocks = ReadingOrder.blocks(lines)
        #expect(texts(blocks) == [["HOPITAL FRANCAIS"]])
        #expect(blocks[0].lines[0].elements.map(\.text) == ["HOPITAL", "FRANCAIS"])
    }

    @Test func cjkFragmentsJoinWithoutASpace() {
        let lines = [line("東京", x: 100, y: 50), line("駅前", x: 100 + 20 + 10, y: 50)]
        #expect(texts(ReadingOrder.blocks(lines)) == [["東京駅前"]])
    }

    @Test func farApartWordsOnOneRowStayTwoLinesInOrder() {
        let lines = [line("OPEN", x: 500, y: 40), line("EXIT", x: 20, y: 42)]
        #expect(texts(ReadingOrder.blocks(lines)).flatMap { $0 } == ["EXIT", "OPEN"])
    }

    @Test func tiltedLabelReadsAlongItsTilt() {
        // Three lines of a label turned 25 degrees: their boxes overlap in y, and the lower
        // lines start to the left of the upper ones' ends.
        let step = 34.0
        let radians = 25.0 * Double.pi / 180
        let lines = (0..<3).map { row in
            tilted(
                ["Fresh organic coffee", "Best before 2026", "Lot 48213"][row],
                x: 200 - Double(row) * step * sine(radians), y: 100 + Double(row) * step * cosine(radians),
                degrees: 25)
        }
        let blocks = ReadingOrder.blocks(lines.reversed())
        #expect(texts(blocks) == [["Fresh organic coffee", "Best before 2026", "Lot 48213"]])
        #expect(blocks[0].lines[0].quad != nil)
    }

    @Test func separatedParagraphsAreSeparateBlocks() {
        let lines = [
            line("First paragraph line one", x: 40, y: 40), line("first paragraph line two", x: 40, y: 66),
            line("Second paragraph", x: 40, y: 130),
        ]
        #expect(
            texts(ReadingOrder.blocks(lines)) == [
                ["First paragraph line one", "first paragraph line two"], ["Second paragraph"],
            ])
    }

    /// A column of vertical text at x...x+40, from y down, 46 px per character: its quad reads down.
    private func column(_ text: String, x: Int32, y: Int32) -> TextLine {
        let frame = Rect(x: x, y: y, width: 40, height: Int32(text.count) * 46)
        let quad = Quad(frame).readingDown
        return TextLine(
            text: text, frame: frame, confidence: 0.9, recognizedLanguages: ["und-Hans"],
            elements: [TextElement(text: text, frame: frame, confidence: 0.9, recognizedLanguages: ["und-Hans"])],
            quad: quad)
    }

    @Test func verticalColumnsReadRightToLeftWhereverTheyStart() {
        // The middle column lies wholly below the right one: no row cut may put it first.
        let lines = [
            column("左边一列", x: 100, y: 60), column("中间", x: 200, y: 400), column("右边的一列", x: 300, y: 20),
        ]
        #expect(ReadingOrder.blocks(lines).flatMap { $0.lines.map(\.text) } == ["右边的一列", "中间", "左边一列"])
        // Columns have no rows: each is a line of the text.
        #expect(ReadingOrder.blocks(lines).map(\.text) == ["右边的一列\n中间\n左边一列"])
    }

    @Test func aWideGapSeparatesBlocksOfColumnsReadRightToLeft() {
        let lines = [
            column("甲乙丙", x: 40, y: 40), column("丁戊己", x: 100, y: 40), column("庚辛壬", x: 600, y: 40),
            column("癸子丑", x: 660, y: 40),
        ]
        #expect(texts(ReadingOrder.blocks(lines)) == [["癸子丑", "庚辛壬"], ["丁戊己", "甲乙丙"]])
    }

    @Test func aHeadingAboveColumnsIsReadFirst() {
        // A Japanese shop sign: the horizontal name, then the columns below it right to left,
        // though the left column lies under the heading.
        let blocks = ReadingOrder.blocks([
            column("本日のおすすめ", x: 460, y: 140), line("東京駅前店", x: 200, y: 40, height: 40),
            column("営業時間", x: 300, y: 140),
        ])
        #expect(blocks.flatMap { $0.lines.map(\.text) } == ["東京駅前店", "本日のおすすめ", "営業時間"])
    }

    @Test func noLinesNoBlocks() {
        #expect(ReadingOrder.blocks([]).isEmpty)
    }

    @Test func affineMapInvertsAndComposes() {
        let map = AffineMap(a: 0.9, b: -0.4, c: 0.4, d: 0.9, tx: 120, ty: -30)
        let inverse = map.inverted!
        let (x, y) = inverse.apply(map.apply(17, 42).x, map.apply(17, 42).y)
        #expect(abs(x - 17) < 1e-9 && abs(y - 42) < 1e-9)
        let both = map.followed(by: inverse)
        #expect(abs(both.a - 1) < 1e-9 && abs(both.b) < 1e-9 && abs(both.tx) < 1e-9)
        let quad = AffineMap.identity.map(Rect(x: 1, y: 2, width: 3, height: 4))
        #expect(quad.points == Rect(x: 1, y: 2, width: 3, height: 4).cornerPoints)
    }
}
