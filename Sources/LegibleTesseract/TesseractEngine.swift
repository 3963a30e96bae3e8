internal import CTesseract
internal import Glibc
public import LegibleCore

/// How Tesseract finds the text on a page (its `PageSegMode`, by number).
public enum PageSegmentation: Int, Sendable, Hashable, CaseIterable {
    /// PSM 3: full layout analysis, no orientation detection.
    case auto = 3
    /// PSM 6: one uniform block of text.
    case singleBlock = 6
    /// PSM 11: as much text as possible, in no particular order.
    case sparseText = 11

    /// The default for `MODE_TEXT` camera frames: sparse text. Camera scenes are scattered
    /// labels and signs rather than a page, and on the fixtures it was the only mode that read
    /// the label's "OFF" right, for ~5-13 % more time than single block. Measured on
    /// scripts/make-fixtures.py's frames with `legible-floor --psm N --repeat 10 --warmup 2`
    /// (release build, OMP_THREAD_LIMIT=1, 2 cores), median ms and CER:
    ///
    ///     PSM              camera-720p eng   camera-720p Latin   label-640x480 eng   label Latin
    ///     3  auto          109 ms  0.0 %     165 ms  0.0 %        34 ms  6.5 %        50 ms  9.7 %
    ///     6  single block   95 ms  0.0 %     150 ms  0.0 %        32 ms  6.5 %        58 ms  9.7 %
    ///     11 sparse text   108 ms  0.0 %     165 ms  0.0 %        34 ms  0.0 %        48 ms  0.0 %
    ///
    /// On 15 more 640x480 label renders (5 texts x 3 sizes), eng: CER 1.9 / 1.9 / 1.0 % and
    /// 544 / 523 / 550 ms in total for PSM 3 / 6 / 11.
    public static let textDefault = PageSegmentation.sparseText
}

/// One Tesseract instance reading one model: the `Recognizer` of one script.
///
/// Owns a `TessBaseAPI` and its `ETEXT_DESC` monitor (kept for cancel and deadlines), both
/// freed in `deinit` only: Swift runs `deinit` when an init throws after every stored property
/// is set, so freeing them in the init as well would free them twice. Not `Sendable`: a
/// Tesseract handle must stay on the one thread that created it.
public final class TesseractEngine: Recognizer {
    public let script: Script
    /// The Tesseract model name(s) given to `Init`, such as `eng`, `Latin` or `jpn+eng`.
    public let model: String
    /// The page segmentation for `MODE_TEXT`; `MODE_DOCUMENT` always uses `.auto`.
    public var textSegmentation: PageSegmentation

    private let api: OpaquePointer
    private let monitor: OpaquePointer
    /// Model name → BCP-47, so each word costs a dictionary look-up, not a table scan.
    private var languageTags: [String: String] = [:]

    /// Loads `model` from `tessdata`.
    ///
    /// - Throws: `.failedPrecondition` when a model file is missing (naming the Debian package
    ///   that installs it) or Tesseract cannot load it; `.internal` if a handle cannot be made.
    public init(
        tessdata: String, model: String, script: Script,
        textSegmentation: PageSegmentation = .textDefault
    ) throws(LegibleError) {
        // Check the files first: Tesseract's own failure is a line on stderr and -1.
        for name in model.split(separator: "+").map(String.init) {
            let path = tessdata.hasSuffix("/") ? "\(tessdata)\(name).traineddata" : "\(tessdata)/\(name).traineddata"
            if access(path, R_OK) != 0 {
                throw LegibleError(
                    .failedPrecondition,
                    "Tesseract model '\(name)' is missing: no \(path); install the Debian package "
                        + "\(TesseractModels.debianPackage(for: name)) or pass --tessdata with the folder that holds it")
            }
        }
        guard let api = TessBaseAPICreate() else {
            throw LegibleError(.internal, "TessBaseAPICreate failed")
        }
        guard let monitor = TessMonitorCreate() else {
            TessBaseAPIDelete(api)  // no stored property is set yet, so deinit will not run
            throw LegibleError(.internal, "TessMonitorCreate failed")
        }
        self.api = api
        self.monitor = monitor
        self.script = script
        self.model = model
        self.textSegmentation = textSegmentation

        // "Estimating resolution as N" goes to debug_file on every frame. The resolution itself
        // is left to Tesseract's estimate: forcing 300 dpi made camera frames worse (NOTES).
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        // Debian's models are LSTM-only: the legacy engine modes fail to init with them.
        if TessBaseAPIInit2(api, tessdata, model, OEM_LSTM_ONLY) != 0 {
            throw LegibleError(
                .failedPrecondition,
                "Tesseract cannot load model '\(model)' from \(tessdata); reinstall "
                    + model.split(separator: "+").map { TesseractModels.debianPackage(for: String($0)) }.joined(
                        separator: ", "))
        }
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
        TessMonitorDelete(monitor)
    }

    /// Recognizes `image` with one result-iterator walk (word level, or symbol level when
    /// `request.includeSymbols`), building each parent's text from its children.
    public func recognize(_ image: GrayImage, request: RecognitionRequest) throws(LegibleError) -> RecognizedText {
        let empty = RecognizedText(imageWidth: image.width, imageHeight: image.height)
        // 0x0 works but makes Leptonica log errors; 32768 px or more fails ("Image too large").
        guard image.width > 0, image.height > 0 else { return empty }
        guard image.width < 32768, image.height < 32768 else {
            throw LegibleError(.invalidArgument, "image of \(image.width)x\(image.height) is too large for Tesseract")
        }
        let segmentation = request.mode == .document ? PageSegmentation.auto : textSegmentation
        TessBaseAPISetPageSegMode(api, TessPageSegMode(rawValue: UInt32(segmentation.rawValue)))
        defer { TessBaseAPIClear(api) }

        // The raw bytes, not a Pix: a row-wise memcpy into a Pix scrambles the byte order (NOTES).
        // SetImage copies the pixels, so the buffer need not outlive this call.
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            TessBaseAPISetImage(
                api, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.bytesPerRow))
            return TessBaseAPIRecognize(api, monitor)
        }
        guard status == 0 else {
            throw LegibleError(.internal, "Tesseract recognition failed (status \(status))")
        }
        guard let iterator = TessBaseAPIGetIterator(api) else { return empty }
        defer { TessResultIteratorDelete(iterator) }
        return walk(iterator, request: request, width: image.width, height: image.height)
    }

    private func walk(_ iterator: OpaquePointer, request: RecognitionRequest, width: Int, height: Int) -> RecognizedText {
        // The page iterator is the result iterator seen as its base class: not to be deleted.
        let page = TessResultIteratorGetPageIterator(iterator)
        let level = request.includeSymbols ? RIL_SYMBOL : RIL_WORD
        var tree = TreeBuilder(document: request.mode == .document)
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_BLOCK) != 0 {
                tree.closeBlock()
            } else if TessPageIteratorIsAtBeginningOf(page, RIL_PARA) != 0 {
                tree.closeParagraph()
            } else if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                tree.closeLine()
            }
            if !request.includeSymbols || TessPageIteratorIsAtBeginningOf(page, RIL_WORD) != 0 {
                tree.closeWord()
                tree.openWord(
                    text: request.includeSymbols ? nil : Self.text(iterator, RIL_WORD),
                    frame: Self.frame(page, RIL_WORD),
                    confidence: Self.confidence(iterator, RIL_WORD),
                    language: language(iterator))
            }
            if request.includeSymbols {
                tree.addSymbol(
                    TextSymbol(
                        text: Self.text(iterator, RIL_SYMBOL), frame: Self.frame(page, RIL_SYMBOL),
                        confidence: Self.confidence(iterator, RIL_SYMBOL)))
            }
        } while TessResultIteratorNext(iterator, level) != 0
        return tree.finish(width: width, height: height)
    }

    private static func text(_ iterator: OpaquePointer, _ level: TessPageIteratorLevel) -> String {
        guard let text = TessResultIteratorGetUTF8Text(iterator, level) else { return "" }
        defer { TessDeleteText(text) }
        return String(cString: text)
    }

    private static func frame(_ page: OpaquePointer?, _ level: TessPageIteratorLevel) -> Rect {
        var left: Int32 = 0
        var top: Int32 = 0
        var right: Int32 = 0
        var bottom: Int32 = 0
        guard TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else {
            return Rect(x: 0, y: 0, width: 0, height: 0)
        }
        return Rect(left: left, top: top, right: right, bottom: bottom)
    }

    /// Tesseract's 0…100 as 0…1.
    private static func confidence(_ iterator: OpaquePointer, _ level: TessPageIteratorLevel) -> Float {
        min(1, max(0, TessResultIteratorConfidence(iterator, level) / 100))
    }

    /// The BCP-47 tag of the model that read the current word (not owned: no free).
    private func language(_ iterator: OpaquePointer) -> String? {
        guard let name = TessResultIteratorWordRecognitionLanguage(iterator) else { return nil }
        let model = String(cString: name)
        if let tag = languageTags[model] { return tag }
        let tag = TesseractModels.languageTag(for: model)
        languageTags[model] = tag
        return tag
    }
}

@available(*, unavailable, message: "a Tesseract handle belongs to one thread")
extension TesseractEngine: Sendable {}
