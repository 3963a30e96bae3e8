public import LegibleCore
public import LegibleImaging

/// Reads the lines a detector found, one by one, the way the phone SDKs do: each line is cut
/// out, turned horizontal and made dark on light (`LineRectifier`), read alone by the
/// script's recognizer in its single-line mode, mapped back into the upright image with its
/// rotated corners, and the lines are grouped into blocks in reading order (`ReadingOrder`).
///
/// A line is answered only when both the detector and the recognizer are sure enough of it:
/// clutter that the detector half-believes and the recognizer reads as a few confident-looking
/// letters is what makes invented text.
public struct LineReader: Sendable {
    public var rectifier: LineRectifier
    /// Lines the detector is less sure of are not read.
    public var minimumDetectionScore: Float
    /// Lines whose words' mean confidence is lower than their script's floor are dropped.
    public var minimumConfidence: LineConfidenceFloor
    public var readingOrder: ReadingOrder.Parameters

    public init(
        rectifier: LineRectifier = LineRectifier(), minimumDetectionScore: Float = 0.6,
        minimumConfidence: LineConfidenceFloor = .default,
        readingOrder: ReadingOrder.Parameters = ReadingOrder.Parameters()
    ) {
        self.rectifier = rectifier
        self.minimumDetectionScore = minimumDetectionScore
        self.minimumConfidence = minimumConfidence
        self.readingOrder = readingOrder
    }

    /// The text of `lines` in `image` (upright); coordinates in `image`'s pixels. Each line is
    /// read in its own single-line recognition (stacking the strips into one image read as a
    /// block was tried: slower on camera-720p.jpg, and on a dense page it mixed neighbouring
    /// lines).
    ///
    /// - Parameters:
    ///   - job: as `Recognizer.recognize`.
    ///   - time: the frame's time limit; it covers all the lines.
    /// - Throws: `.cancelled` or `.deadlineExceeded`.
    public func read(
        _ image: GrayImage, lines: [DetectedLine], recognizer: some Recognizer, request: RecognitionRequest,
        job: UInt64 = 0, time: TimeLimit = TimeLimit(nil)
    ) throws(LegibleError) -> RecognizedText {
        var read: [(TextLine, AffineMap)] = []
        for line in lines where line.score >= minimumDetectionScore {
            if let reading = try readLine(
                line, in: image, recognizer: recognizer, request: request, job: job, time: time)
            {
                read.append(reading)
            }
        }
        return assemble(read, width: image.width, height: image.height)
    }

    /// Reads the lines of `routing` that `script`'s recognizer is to read now, and records
    /// each reading in `routing` (a frame read script by script; `ScriptRouting`); then asks
    /// its second reader about the lines whose routing ended with this script unsure.
    public func read(
        _ image: GrayImage, routing: inout ScriptRouting, script: Script, recognizer: some Recognizer,
        request: RecognitionRequest, job: UInt64 = 0, time: TimeLimit = TimeLimit(nil)
    ) throws(LegibleError) {
        routing.setSecondReadingThreshold(
            recognizer.secondReadingThreshold(at: request.level), checksAccents: recognizer.checksAccents, for: script)
        var deferred = request
        deferred.defersSecondReading = true
        while routing.nextScript == script {
            for index in routing.lines(for: script) {
                let reading = try readLine(
                    routing.lines[index], in: image, recognizer: recognizer, request: deferred, job: job, time: time)
                routing.record(
                    reading.map { ScriptRouting.Reading(line: $0.0, toImage: $0.1, script: script) }, line: index,
                    by: script)
            }
            for index in routing.secondReadingLines(for: script) {
                let quad = routing.lines[index].quad
                guard !(recognizer.readsTallLinesAsColumns && Self.isColumn(quad)),
                    let strip = rectifier.rectify(image, quad: quad)
                else {
                    routing.recordSecondReading(nil, line: index, by: script)
                    continue
                }
                let reading = try recognizer.secondReading(
                    of: strip.image, first: routing.reading(of: index, by: script)?.line, request: request, job: job,
                    deadline: time.remaining())
                routing.recordSecondReading(
                    reading.map { ScriptRouting.Reading(line: $0, toImage: strip.toImage, script: script) },
                    line: index, by: script)
            }
        }
    }

    /// One detected line cut out (as a column when the recognizer reads tall lines so) and
    /// read alone; its text in the strip's pixels, and the map from the strip to the image.
    func readLine(
        _ line: DetectedLine, in image: GrayImage, recognizer: some Recognizer, request: RecognitionRequest,
        job: UInt64, time: TimeLimit
    ) throws(LegibleError) -> (TextLine, AffineMap)? {
        let isTall = Self.isColumn(line.quad)
        if isTall && !recognizer.readsTallLinesAsColumns {
            return try readTall(line.quad, in: image, recognizer: recognizer, request: request, job: job, time: time)
        }
        guard let strip = rectifier.rectify(image, quad: isTall ? line.quad.readingDown : line.quad) else {
            return nil
        }
        var lineRequest = request
        lineRequest.lineIsColumn = isTall
        return try recognizer.recognizeLine(strip.image, request: lineRequest, job: job, deadline: time.remaining())
            .map { ($0, strip.toImage) }
    }

    /// A tall box for a reader of horizontal lines: a line turned a quarter (a receipt's side
    /// note reading down, a book's spine reading up) or a lone narrow character ("1"). Read
    /// all three ways; the most confident reading with a letter or digit is kept.
    private func readTall(
        _ quad: Quad, in image: GrayImage, recognizer: some Recognizer, request: RecognitionRequest, job: UInt64,
        time: TimeLimit
    ) throws(LegibleError) -> (TextLine, AffineMap)? {
        var best: (TextLine, AffineMap)?
        for turned in [quad, quad.readingDown, quad.readingUp] {
            guard let strip = rectifier.rectify(image, quad: turned),
                let reading = try recognizer.recognizeLine(
                    strip.image, request: request, job: job, deadline: time.remaining()),
                reading.text.contains(where: { $0.isLetter || $0.isNumber })
            else { continue }
            if reading.confidence > best?.0.confidence ?? -1 { best = (reading, strip.toImage) }
        }
        return best
    }

    /// The lines read, confident ones only, placed in the image and put in reading order.
    public func assemble(_ read: [(TextLine, AffineMap)], width: Int, height: Int) -> RecognizedText {
        let placed = Self.droppingLoneLetters(
            Self.droppingEchoes(
                read.map { (Self.trimmingEdgeMarks($0.0), $0.1) }.filter { isConfident($0.0) }
                    .map { Self.mapped($0.0, by: $0.1) }))
        let blocks = ReadingOrder.blocks(placed, parameters: readingOrder)
        return RecognizedText(
            text: blocks.map(\.text).joined(separator: "\n"), blocks: blocks, imageWidth: width, imageHeight: height)
    }

    /// Whether the detected lines make a page (a scan, a screenshot of a document) rather than
    /// a scene: many lines, nearly all level, small against the image. Tesseract's own page
    /// layout reads a page's columns in order, where lines read one by one and put in order
    /// by `ReadingOrder` mix a magazine's narrow columns (UNLV page: CER 0.74 against 0.03).
    public static func looksLikePage(_ lines: [DetectedLine], width: Int, height: Int) -> Bool {
        guard lines.count >= 20 else { return false }
        let quads = lines.map(\.quad)
        let level = quads.filter { abs($0.angleDegrees) < 2 }.count
        let heights = quads.map(\.height).sorted()
        let medianHeight = heights[heights.count / 2]
        return Double(level) >= 0.9 * Double(lines.count) && medianHeight < 0.025 * Double(max(width, height))
    }

    /// A box at least 1.5 times as tall as wide (PaddleOCR's rule for turning a crop).
    static func isColumn(_ quad: Quad) -> Bool { quad.height >= 1.5 * quad.length }

    /// Marks that a line's first or last word is made of alone, when a reader takes the edge of
    /// a sign, a table's rule or a speck beside the text for a character ("OCR GCSE |",
    /// "| डाक", "विधानमंडल '"); as words of their own at a line's ends they are not text.
    static let edgeMarks: Set<Character> = ["|", "¦", "'", "‘", "’", "`", "\"", "“", "”", "_", "~"]

    /// `line` without a first or last word made only of `edgeMarks`; its confidence then the
    /// mean of the words it keeps.
    static func trimmingEdgeMarks(_ line: TextLine) -> TextLine {
        var trimmed = line
        func isMark(_ element: TextElement) -> Bool {
            !element.text.isEmpty && element.text.allSatisfy { edgeMarks.contains($0) }
        }
        while trimmed.elements.count > 1, let last = trimmed.elements.last, isMark(last),
            trimmed.text.hasSuffix(" " + last.text)
        {
            trimmed.elements.removeLast()
            trimmed.text.removeLast(last.text.count + 1)
        }
        while trimmed.elements.count > 1, let first = trimmed.elements.first, isMark(first),
            trimmed.text.hasPrefix(first.text + " ")
        {
            trimmed.elements.removeFirst()
            trimmed.text.removeFirst(first.text.count + 1)
        }
        if trimmed.elements.count < line.elements.count {
            trimmed.confidence =
                trimmed.elements.reduce(Float(0)) { $0 + $1.confidence } / Float(trimmed.elements.count)
        }
        return trimmed
    }

    /// A line lying at least this share inside another line's box is an echo of it when its text
    /// is part of the other's.
    static let echoShare = 0.5

    /// `lines` without echoes: a detector can find a large letter of a sign's word both on its
    /// own and within the word's line (the big "S" of "Super Market"); a line whose box lies
    /// mostly inside another's, and whose letters and digits that line already reads, is left
    /// out (of two that read the same, the less confident). Boxes are the lines' ink, in the
    /// image.
    static func droppingEchoes(_ lines: [TextLine]) -> [TextLine] {
        func letters(_ line: TextLine) -> String {
            String(line.text.lowercased().filter { $0.isLetter || $0.isNumber })
        }
        let texts = lines.map(letters)
        let boxes = lines.map { $0.quad ?? Quad($0.frame) }
        func echoes(_ index: Int, _ other: Int) -> Bool {
            let (own, theirs) = (texts[index], texts[other])
            guard !own.isEmpty, theirs.contains(own) else { return false }
            if own.count == theirs.count {
                let (mine, its) = (lines[index].confidence, lines[other].confidence)
                guard mine < its || (mine == its && index > other) else { return false }
            }
            return boxes[index].shareInside(boxes[other]) >= echoShare
        }
        return lines.indices.filter { index in !lines.indices.contains { $0 != index && echoes(index, $0) } }
            .map { lines[$0] }
    }

    /// Whether a line read is text: some letter or digit, read with enough confidence for the
    /// model that read it.
    func isConfident(_ line: TextLine) -> Bool {
        guard line.text.contains(where: { $0.isLetter || $0.isNumber }), !line.elements.isEmpty else {
            return false
        }
        return line.elements.characterWeightedConfidence >= minimumConfidence.floor(for: line)
    }

    /// Under this confidence a line whose only letter or digit is one cased letter (Latin,
    /// Greek, Cyrillic) is answered only beside other text. A round or curled shape in a
    /// text-free photograph reads as a lone "O" at 0.51 (a motion-blurred clock face, tune
    /// part), and a card slip's real "S" beside its number read as "s" at 0.51 too: alone in a
    /// frame such a letter is clutter, beside text it is kept.
    static let loneLetterFloor: Float = 0.6

    /// `lines` without weak lone letters when nothing else in the frame is text.
    static func droppingLoneLetters(_ lines: [TextLine]) -> [TextLine] {
        func isWeakLoneLetter(_ line: TextLine) -> Bool {
            let marks = line.text.filter { $0.isLetter || $0.isNumber }
            return marks.count == 1 && marks.first!.isCased
                && line.elements.characterWeightedConfidence < loneLetterFloor
        }
        return lines.allSatisfy(isWeakLoneLetter) ? [] : lines
    }

    /// A line read in a strip, in the image's pixels: every box becomes the quad it covers in
    /// the image, and its frame that quad's bounding rectangle. The line's quad is its words'.
    static func mapped(_ line: TextLine, by map: AffineMap) -> TextLine {
        let rotated = abs(map.b) > 1e-9 || abs(map.c) > 1e-9
        func place(_ frame: Rect) -> (frame: Rect, quad: Quad?) {
            let quad = map.map(frame)
            return (quad.boundingRect, rotated ? quad : nil)
        }
        var copy = line
        let inkBox = line.elements.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) }
        (copy.frame, copy.quad) = place(inkBox.isEmpty ? line.frame : inkBox)
        copy.elements = line.elements.map { element in
            var element = element
            (element.frame, element.quad) = place(element.frame)
            element.symbols = element.symbols.map { symbol in
                var symbol = symbol
                (symbol.frame, symbol.quad) = place(symbol.frame)
                return symbol
            }
            return element
        }
        return copy
    }
}
