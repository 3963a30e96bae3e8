/// Lines read one by one (a detector's lines, each recognized alone) put into blocks, in the
/// order a reader reads them.
///
/// Three steps:
/// 1. The page is cut recursively (XY-cut) into regions: first at a column gutter that runs
///    the whole height of the region and has wide text on both sides (a two-column page, two
///    signs side by side), else at a horizontal gap of about a line or more (paragraphs,
///    sections, a title above columns). A narrow column of numbers beside wide text (a
///    receipt's prices) is no column: its lines are read with their row.
/// 2. Within a region, fragments of one line are joined: a detector splits a line at a wide
///    gap between words (and a tilted line sometimes twice). Two lines are one when they run
///    the same way, have about the same height, sit on the same baseline and the gap between
///    them is short.
/// 3. Each region is a block; its lines are read row by row, each row left to right, in the
///    region's own reading direction (a tilted label reads along its tilt).
public enum ReadingOrder {
    /// Tuning, in units of the region's median line height.
    public struct Parameters: Sendable, Hashable {
        /// Longest gap between two fragments of one line.
        public var joinGap = 1.5
        /// Largest baseline offset between two fragments of one line.
        public var joinOffset = 0.35
        /// Largest height ratio between two fragments of one line.
        public var joinHeightRatio = 1.5
        /// Largest angle between two fragments of one line, degrees.
        public var joinAngle = 8.0
        /// Smallest horizontal gap that separates two blocks.
        public var rowGap = 0.8
        /// Smallest gutter between two columns.
        public var columnGap = 1.0
        /// Smallest width of a column on each side of a gutter.
        public var columnWidth = 6.0
        /// Largest offset of two lines' centres, across the reading direction, for one row.
        public var rowOffset = 0.5
        /// Smallest gap across x between two blocks of vertical columns.
        public var verticalBlockGap = 2.5

        public init() {}
    }

    public static func blocks(_ lines: [TextLine], parameters: Parameters = Parameters()) -> [TextBlock] {
        let lines = lines.filter { !$0.elements.isEmpty || !$0.text.isEmpty }
        guard !lines.isEmpty else { return [] }
        // Lines turned a quarter among level ones (a receipt's side note, a book's spine) are
        // read apart from them, each way they run as a block of its own: sorted into the level
        // lines' rows they would cut through every row they pass, and the XY-cut's gaps across
        // the image are not gaps between their rows. The level lines come first unless the
        // turned ones hold more of the text. Columns of Han, kana or Hangul stay: `cut` reads
        // them with the level lines around them (a shop sign's heading above its columns).
        let level = lines.filter { !isTurnedQuarter($0) }
        if !level.isEmpty, level.count < lines.count {
            let turned = lines.filter { isTurnedQuarter($0) }
            let runs = [turned.filter { angle(of: $0) > 0 }, turned.filter { angle(of: $0) < 0 }].filter { !$0.isEmpty }
            let turnedBlocks = runs.map { block(of: $0, parameters) }
            let levelBlocks = blocks(level, parameters: parameters)
            let characters = { (lines: [TextLine]) in lines.reduce(0) { $0 + $1.text.count } }
            return characters(turned) > characters(level) ? turnedBlocks + levelBlocks : levelBlocks + turnedBlocks
        }
        let geometry = lines.map(LineGeometry.init)
        let medianHeight = max(1, median(geometry.map(\.height)))
        var regions: [[Int]] = []
        cut(Array(lines.indices), geometry, medianHeight, parameters, into: &regions)
        // Fragments are joined within a region only: the two halves of a line never lie on
        // either side of a column gutter, two columns' lines often do.
        return regions.map { block(of: $0.map { lines[$0] }, parameters) }
    }

    /// One region's lines as a block: fragments joined, then read row by row.
    static func block(of region: [TextLine], _ parameters: Parameters) -> TextBlock {
        let joined = joinFragments(region, parameters)
        return makeBlock(ordered(Array(joined.indices), joined.map(LineGeometry.init), parameters).map { joined[$0] })
    }

    // MARK: Geometry of a line

    struct LineGeometry {
        var frame: Rect
        var height: Double
        var angle: Double
        var center: (x: Double, y: Double)
        var direction: (x: Double, y: Double)
        var length: Double

        init(_ line: TextLine) {
            let quad = line.quad ?? Quad(line.frame)
            frame = line.frame
            height = max(1, quad.height)
            angle = quad.angleDegrees
            center = quad.center
            direction = quad.direction
            length = quad.length
        }

        /// Whether the line runs down the image (a column of vertical text).
        var runsDown: Bool { abs(angle - 90) < 20 }

        /// Coordinates of a point along this line's direction and across it.
        func project(_ point: (x: Double, y: Double)) -> (along: Double, across: Double) {
            let dx = point.x - center.x
            let dy = point.y - center.y
            return (dx * direction.x + dy * direction.y, -dx * direction.y + dy * direction.x)
        }
    }

    // MARK: 1. Joining fragments

    static func joinFragments(_ lines: [TextLine], _ parameters: Parameters) -> [TextLine] {
        var lines = lines
        var joinedAny = true
        while joinedAny {
            joinedAny = false
            search: for i in lines.indices {
                for j in lines.indices where j != i {
                    if let joined = join(lines[i], lines[j], parameters) {
                        lines[i] = joined
                        lines.remove(at: j)
                        joinedAny = true
                        break search
                    }
                }
            }
        }
        return lines
    }

    /// `left` and `right` as one line when `right` continues `left` on its baseline.
    static func join(_ left: TextLine, _ right: TextLine, _ parameters: Parameters) -> TextLine? {
        let a = LineGeometry(left)
        let b = LineGeometry(right)
        let height = (a.height + b.height) / 2
        guard max(a.height, b.height) / min(a.height, b.height) <= parameters.joinHeightRatio,
            angleDifference(a.angle, b.angle) <= parameters.joinAngle
        else { return nil }
        let (along, across) = a.project(b.center)
        let gap = along - a.length / 2 - b.length / 2
        guard along > 0, abs(across) <= parameters.joinOffset * height, gap <= parameters.joinGap * height,
            gap >= -0.5 * height
        else { return nil }
        let separator = needsSpace(between: left.text, and: right.text) ? " " : ""
        let leftQuad = left.quad ?? Quad(left.frame)
        let rightQuad = right.quad ?? Quad(right.frame)
        let quad = Quad(
            topLeft: leftQuad.topLeft, topRight: rightQuad.topRight, bottomRight: rightQuad.bottomRight,
            bottomLeft: leftQuad.bottomLeft)
        let leftWeight = Float(max(1, left.text.count))
        let rightWeight = Float(max(1, right.text.count))
        return TextLine(
            text: left.text + separator + right.text, frame: left.frame.union(right.frame),
            confidence: (left.confidence * leftWeight + right.confidence * rightWeight) / (leftWeight + rightWeight),
            recognizedLanguages: unique(left.recognizedLanguages + right.recognizedLanguages),
            elements: left.elements + right.elements, quad: (left.quad == nil && right.quad == nil) ? nil : quad)
    }

    /// Han, kana and Hangul-free joins take a space; two CJK characters do not (Chinese and
    /// Japanese put no space between words).
    public static func needsSpace(between left: String, and right: String) -> Bool {
        guard let last = left.unicodeScalars.last, let first = right.unicodeScalars.first else { return false }
        return !(isCJK(last) && isCJK(first))
    }

    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF00...0xFF9F, 0x3000...0x303F:
            return true
        default:
            return false
        }
    }

    // MARK: 2. Regions (XY-cut)

    static func cut(
        _ region: [Int], _ geometry: [LineGeometry], _ medianHeight: Double, _ parameters: Parameters,
        into regions: inout [[Int]]
    ) {
        guard region.count > 1 else {
            if !region.isEmpty { regions.append(region) }
            return
        }
        if isVertical(region, geometry) {
            // A horizontal line wholly above every column (a shop sign's heading) is read
            // before them, one wholly below after them.
            let columns = region.filter { isColumn($0, geometry) }
            let top = columns.map { geometry[$0].frame.y }.min() ?? 0
            let bottom = columns.map { geometry[$0].frame.maxY }.max() ?? 0
            let above = region.filter { !isColumn($0, geometry) && geometry[$0].frame.maxY <= top }
            let below = region.filter { !isColumn($0, geometry) && geometry[$0].frame.y >= bottom }
            if !above.isEmpty || !below.isEmpty {
                let middle = region.filter { !above.contains($0) && !below.contains($0) }
                for part in [above, middle, below] where !part.isEmpty {
                    cut(part, geometry, medianHeight, parameters, into: &regions)
                }
                return
            }
            // Columns read top to bottom (vertical CJK) are a page turned a quarter: a column
            // may end above where the next begins, so there is no cut across y; a wide gap
            // across x separates blocks, read right to left. Within a block `ordered` reads
            // the columns right to left (across their downward direction).
            if let blocks = split(
                region, geometry, horizontalCut: false, minimumGap: parameters.verticalBlockGap * medianHeight)
            {
                for part in blocks.reversed() { cut(part, geometry, medianHeight, parameters, into: &regions) }
            } else {
                regions.append(region)
            }
            return
        }
        if let columns = split(region, geometry, horizontalCut: false, minimumGap: parameters.columnGap * medianHeight),
            columns.allSatisfy({ width(of: $0, geometry) >= parameters.columnWidth * medianHeight })
        {
            for part in columns { cut(part, geometry, medianHeight, parameters, into: &regions) }
            return
        }
        if let rows = split(region, geometry, horizontalCut: true, minimumGap: parameters.rowGap * medianHeight) {
            for part in rows { cut(part, geometry, medianHeight, parameters, into: &regions) }
            return
        }
        regions.append(region)
    }

    /// A line that runs down or up the image and is not a column of CJK characters: text
    /// turned a quarter.
    static func isTurnedQuarter(_ line: TextLine) -> Bool {
        guard abs(abs(angle(of: line)) - 90) < 30 else { return false }
        return !line.text.unicodeScalars.contains { WrittenScript.of($0)?.isEastAsian == true }
    }

    static func angle(of line: TextLine) -> Double { (line.quad ?? Quad(line.frame)).angleDegrees }

    /// Whether most of the region's lines run down the image (columns of vertical text).
    static func isVertical(_ region: [Int], _ geometry: [LineGeometry]) -> Bool {
        2 * region.filter { isColumn($0, geometry) }.count > region.count
    }

    /// Whether a line runs down the image.
    static func isColumn(_ line: Int, _ geometry: [LineGeometry]) -> Bool { geometry[line].runsDown }

    /// The region cut at every gap of at least `minimumGap` that no line crosses, across y
    /// (rows, top to bottom) or across x (columns, left to right); nil when there is none.
    static func split(_ region: [Int], _ geometry: [LineGeometry], horizontalCut: Bool, minimumGap: Double)
        -> [[Int]]?
    {
        func start(_ i: Int) -> Int32 { horizontalCut ? geometry[i].frame.y : geometry[i].frame.x }
        func end(_ i: Int) -> Int32 { horizontalCut ? geometry[i].frame.maxY : geometry[i].frame.maxX }
        let sorted = region.sorted { start($0) < start($1) }
        var parts: [[Int]] = [[sorted[0]]]
        var reach = end(sorted[0])
        for index in sorted.dropFirst() {
            if Double(start(index) - reach) >= minimumGap {
                parts.append([index])
            } else {
                parts[parts.count - 1].append(index)
            }
            reach = max(reach, end(index))
        }
        return parts.count > 1 ? parts : nil
    }

    static func width(of region: [Int], _ geometry: [LineGeometry]) -> Double {
        let left = region.map { geometry[$0].frame.x }.min() ?? 0
        let right = region.map { geometry[$0].frame.maxX }.max() ?? 0
        return Double(right - left)
    }

    // MARK: 3. Rows within a block

    /// The region's lines row by row, each row along the reading direction; rows and positions
    /// are measured in the frame of the region's median direction.
    static func ordered(_ region: [Int], _ geometry: [LineGeometry], _ parameters: Parameters) -> [Int] {
        guard region.count > 1 else { return region }
        let reference = region.map { geometry[$0] }.sorted { $0.angle < $1.angle }[region.count / 2]
        struct Placed {
            var index: Int
            var along: Double
            var across: Double
            var height: Double
        }
        let placed = region.map { index -> Placed in
            let (along, across) = reference.project(geometry[index].center)
            return Placed(index: index, along: along, across: across, height: geometry[index].height)
        }.sorted { $0.across < $1.across }
        var rows: [[Placed]] = []
        for line in placed {
            if let row = rows.last, let first = row.first,
                abs(line.across - row.map(\.across).reduce(0, +) / Double(row.count))
                    <= parameters.rowOffset * min(line.height, first.height)
            {
                rows[rows.count - 1].append(line)
            } else {
                rows.append([line])
            }
        }
        return rows.flatMap { $0.sorted { $0.along < $1.along }.map(\.index) }
    }

    // MARK: Blocks

    static func makeBlock(_ lines: [TextLine]) -> TextBlock {
        let weights = lines.map { Float(max(1, $0.elements.count)) }
        let total = weights.reduce(0, +)
        let confidence = zip(lines, weights).reduce(Float(0)) { $0 + $1.0.confidence * $1.1 } / max(1, total)
        return TextBlock(
            text: text(ofOrdered: lines),
            frame: lines.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) },
            confidence: confidence, recognizedLanguages: unique(lines.flatMap(\.recognizedLanguages)), lines: lines)
    }

    /// The text of a block's lines in reading order, as a reader reads it: the lines of one
    /// row (a table's cells, a receipt's item and its price) joined by a space — none between
    /// two CJK characters — and rows by line breaks, as Tesseract's page layout writes a row.
    /// The lines stay apart in the block (each with its own box, as ML Kit gives them).
    public static func text(ofOrdered lines: [TextLine], parameters: Parameters = Parameters()) -> String {
        var text = ""
        for (index, line) in lines.enumerated() {
            if index > 0 {
                text +=
                    continuesRow(lines[index - 1], with: line, parameters: parameters)
                    ? (needsSpace(between: text, and: line.text) ? " " : "") : "\n"
            }
            text += line.text
        }
        return text
    }

    /// Whether `next` continues `line`'s row: further along the same direction, its centre
    /// within `rowOffset` of the row across it. Columns of vertical text have no rows.
    public static func continuesRow(_ line: TextLine, with next: TextLine, parameters: Parameters = Parameters())
        -> Bool
    {
        sameRow(LineGeometry(line), LineGeometry(next), parameters)
    }

    static func sameRow(_ line: LineGeometry, _ next: LineGeometry, _ parameters: Parameters) -> Bool {
        guard !line.runsDown, angleDifference(line.angle, next.angle) <= parameters.joinAngle else {
            return false
        }
        let (along, across) = line.project(next.center)
        return along > 0 && abs(across) <= parameters.rowOffset * min(line.height, next.height)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }

    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        var difference = abs(a - b).truncatingRemainder(dividingBy: 360)
        if difference > 180 { difference = 360 - difference }
        return difference
    }

    static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}
