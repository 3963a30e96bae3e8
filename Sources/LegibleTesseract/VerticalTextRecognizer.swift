public import LegibleCore

/// A script's Tesseract engine together with its vertical model (`jpn_vert` beside `jpn`):
/// detected lines much taller than wide are columns of vertical Japanese, read top to bottom.
///
/// The line reader cuts a column out turned a quarter counter-clockwise (`lineIsColumn`), as
/// PP-OCR's recognizer reads it; Tesseract's vertical models read the column upright, so the
/// strip is turned back and read as one block of vertical text (PSM 5), and every box is
/// turned into the strip's pixels again. Everything else goes to the horizontal engine. Both
/// handles share one cancellation and live on the engine's thread.
public final class VerticalTextRecognizer: Recognizer {
    public let base: TesseractEngine
    private let columns: TesseractEngine

    public var key: EngineKey { base.key }
    public var cancellation: RecognitionCancellation { base.cancellation }
    public var readsTallLinesAsColumns: Bool { true }

    /// The vertical model of a horizontal one, when Debian packages one.
    public static func verticalModel(of model: String) -> String? {
        ["jpn": "jpn_vert", "Japanese": "Japanese_vert", "chi_sim": "chi_sim_vert", "HanS": "HanS_vert"][model]
    }

    /// `base` with the vertical model of its one model, loaded from `tessdata`.
    ///
    /// - Throws: as `TesseractEngine.init`; `.invalidArgument` when `base` has no single model
    ///   with a vertical counterpart.
    public init(base: TesseractEngine, tessdata: String) throws(LegibleError) {
        guard base.key.models.count == 1, let vertical = Self.verticalModel(of: base.key.models[0]) else {
            throw LegibleError(.invalidArgument, "engine \(base.key) has no vertical model")
        }
        self.base = base
        self.columns = try TesseractEngine(
            tessdata: tessdata,
            key: EngineKey(
                models: [vertical], customWords: base.key.customWords, languageCorrection: base.key.languageCorrection),
            cancellation: base.cancellation)
    }

    public func recognize(_ image: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError) -> RecognizedText
    {
        try base.recognize(image, request: request, job: job, deadline: deadline)
    }

    public func recognizeLine(_ strip: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError) -> TextLine?
    {
        guard request.lineIsColumn else {
            return try base.recognizeLine(strip, request: request, job: job, deadline: deadline)
        }
        guard
            var line = try columns.recognizeColumn(Self.upright(strip), request: request, job: job, deadline: deadline)
        else { return nil }
        // Tesseract's boxes of vertical words take the column's whole width: each is turned
        // into the strip and trimmed to its ink.
        let height = Int32(strip.height)
        func turned(_ rect: Rect) -> Rect {
            let box = Rect(x: rect.y, y: height - rect.x - rect.width, width: rect.height, height: rect.width)
            guard let ink = strip.inkBox(columns: Int(box.x)..<Int(box.maxX)) else { return box }
            return Rect(left: ink.x, top: max(box.y, ink.y), right: ink.maxX, bottom: min(box.maxY, ink.maxY))
        }
        line.elements = line.elements.map { element in
            var element = element
            element.frame = turned(element.frame)
            element.symbols = element.symbols.map { symbol in
                var symbol = symbol
                symbol.frame = turned(symbol.frame)
                return symbol
            }
            return element
        }
        line.frame = line.elements.dropFirst().reduce(line.elements.first.map(\.frame) ?? turned(line.frame)) {
            $0.union($1.frame)
        }
        return line
    }

    /// The column upright again: the strip turned a quarter clockwise. Pixel (x, y) of the
    /// result is the strip's (y, height − 1 − x).
    static func upright(_ strip: GrayImage) -> GrayImage {
        let (width, height) = (strip.height, strip.width)
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                pixels[y * width + x] = strip.pixels[(strip.height - 1 - x) * strip.bytesPerRow + y]
            }
        }
        return GrayImage(width: width, height: height, bytesPerRow: width, pixels: pixels)
    }
}
