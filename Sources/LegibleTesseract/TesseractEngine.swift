internal import CLeptonica
internal import COpenMPRegions
internal import CTesseract
internal import CWordImages
internal import Glibc
public import LegibleCore

/// How Tesseract finds the text on a page (its `PageSegMode`, by number).
public enum PageSegmentation: Int, Sendable, Hashable, CaseIterable {
    /// PSM 3: full layout analysis, no orientation detection.
    case auto = 3
    /// PSM 4: one column of text of variable sizes.
    case singleColumn = 4
    /// PSM 5: one uniform block of vertical text (an upright CJK column, with a `_vert` model).
    case verticalBlock = 5
    /// PSM 6: one uniform block of text.
    case singleBlock = 6
    /// PSM 7: the image is one line of text (a detected line, cut out and turned horizontal).
    case singleLine = 7
    /// PSM 11: as much text as possible, in no particular order.
    case sparseText = 11

    /// The segmentation for a recognition, by mode, region of interest and models.
    ///
    /// - `MODE_DOCUMENT`: auto (PSM 3): pages have columns, paragraphs and reading order.
    /// - `MODE_TEXT` with a region of interest: a uniform block (PSM 6): the client framed
    ///   one label or line, and block mode reads it without hunting for scattered text.
    /// - `MODE_TEXT`: sparse text (PSM 11): camera scenes are scattered signs and labels
    ///   rather than a page; on the label fixture it was the only mode that read "OFF" right,
    ///   for ~5-13 % more time than block mode (README's table).
    /// - Korean in either mode: single column (PSM 4). Measured on the generated Korean scene
    ///   (`make bench-models`): sparse text split the lines into fragments (CER 0.29, kor) and
    ///   auto missed most of them (0.83), while PSM 4 and 6 read it exactly.
    public static func choose(mode: RecognitionMode, hasRegionOfInterest: Bool, models: [String]) -> PageSegmentation {
        if models.contains(where: { $0 == "kor" || $0 == "Hangul" }) {
            return hasRegionOfInterest ? .singleBlock : .singleColumn
        }
        switch mode {
        case .document: return .auto
        case .text: return hasRegionOfInterest ? .singleBlock : .sparseText
        }
    }
}

/// One Tesseract instance reading one engine key's models: a `Recognizer`.
///
/// Owns a `TessBaseAPI` and its `ETEXT_DESC` monitor (for cancel and deadlines), both freed
/// in `deinit` only: Swift runs `deinit` when an init throws after every stored property is
/// set, so freeing them in the init as well would free them twice. Not `Sendable`: a
/// Tesseract handle must stay on the one thread that created it.
///
/// The levels (measured on scripts/camera_frames.py's frames, `make bench-models`):
/// - FAST: one pass with Tesseract's global (Otsu) threshold; large text is first shrunk
///   toward `fastWordHeight` when the session's last result says it is large.
/// - ACCURATE: a pass with Sauvola's adaptive threshold on the image made dark-on-light;
///   small text is read again enlarged toward `accurateWordHeight`; when that still finds
///   little, a global-threshold pass too. The reading with the best score is kept. A page the
///   line detector found (`readsAsPage`) is read the other way round: global first.
public final class TesseractEngine: Recognizer {
    public let key: EngineKey
    public let cancellation: RecognitionCancellation
    /// The noise `checkNoise` measured in the last large image (for tests).
    public private(set) var lastNoise: Double?
    /// A page image of `NoiseGate.fromPixels` or more whose noise is above this is refused
    /// before Tesseract's layout analysis (`--max-noise`); 1 measures nothing.
    public var maximumNoise = NoiseGate.defaultMaximumShare
    /// The page segmentation to force in every mode (benchmarks); nil chooses per request.
    public var segmentationOverride: PageSegmentation?

    private let api: OpaquePointer
    private let monitor: OpaquePointer
    /// Model name → BCP-47, so each word costs a dictionary look-up, not a table scan.
    private var languageTags: [String: String] = [:]

    /// FAST shrinks text whose words are taller than `fastShrinkAbove` px toward this height
    /// (x-height ≈ 20 px): docs/library-facts.md ("text size") records no loss down to an x-height of ~25 px and half the
    /// time; the generated "big" scene read exactly at 22-31 px word height.
    public static let fastWordHeight = 32.0
    public static let fastShrinkAbove = 48.0
    /// ACCURATE enlarges text whose median word height is under `accurateEnlargeBelow` px
    /// toward this height (x-height ≈ 30 px), up to `maximumEnlargement` and `maximumPixels`.
    static let accurateWordHeight = 40.0
    static let accurateEnlargeBelow = 16.0
    static let maximumEnlargement = 3.0
    static let maximumPixels = 12_000_000.0
    /// ACCURATE adds a global-threshold pass when the words read so far have a mean
    /// confidence under this.
    static let accurateRetryBelowConfidence: Float = 0.8

    /// Whether Tesseract's in-memory word images skip PNG compression in this process
    /// (Sources/CWordImages interposes Leptonica's pixWriteMem; docs/library-facts.md, "Word
    /// images"). Without it Tesseract reads the same text, more slowly (the figures are there).
    public static let wordImagesUncompressed = legible_word_images_uncompressed() != 0

    /// Whether Tesseract's OpenMP parallel regions run inline on the engine's thread, without
    /// libgomp's team barrier and its futex call per region (Sources/COpenMPRegions interposes
    /// GOMP_parallel and GOMP_parallel_sections; docs/library-facts.md, "Tesseract: OpenMP
    /// regions"): true with one OpenMP thread (`OMP_THREAD_LIMIT=1`) unless
    /// `LEGIBLE_OPENMP_REGIONS=libgomp`.
    public static let openMPRegionsInline = legible_openmp_regions_inline() != 0

    /// Loads `key`'s models from `tessdata`.
    ///
    /// - Throws: `.failedPrecondition` when a model file is missing (naming the Debian package
    ///   that installs it) or Tesseract cannot load it; `.internal` if a handle cannot be made.
    public init(
        tessdata: String, key: EngineKey, cancellation: RecognitionCancellation = RecognitionCancellation()
    ) throws(LegibleError) {
        // Check the files first: Tesseract's own failure is a line on stderr and -1.
        for name in key.models where !TesseractModels.isInstalled(name, in: tessdata) {
            throw LegibleError(
                .failedPrecondition,
                "Tesseract model '\(name)' is not installed: install the Debian package "
                    + "\(ModelCatalog.debianPackage(for: name)) (or pass --tessdata with the folder that holds it)")
        }
        _ = Self.wordImagesUncompressed
        _ = Self.openMPRegionsInline
        guard let api = TessBaseAPICreate() else {
            throw LegibleError(.internal, "TessBaseAPICreate failed")
        }
        guard let monitor = TessMonitorCreate() else {
            TessBaseAPIDelete(api)  // no stored property is set yet, so deinit will not run
            throw LegibleError(.internal, "TessMonitorCreate failed")
        }
        self.api = api
        self.monitor = monitor
        self.key = key
        self.cancellation = cancellation

        // The monitor asks this callback between words whether to stop.
        TessMonitorSetCancelFunc(monitor) { cancelThis, _ in
            guard let cancelThis else { return false }
            return Unmanaged<RecognitionCancellation>.fromOpaque(cancelThis).takeUnretainedValue().isCancelled
        }
        TessMonitorSetCancelThis(monitor, Unmanaged.passUnretained(cancellation).toOpaque())

        // "Estimating resolution as N" goes to debug_file on every frame. The resolution itself
        // is left to Tesseract's estimate: forcing 300 dpi made camera frames worse (docs/library-facts.md, "resolution").
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        try Self.initialise(api, tessdata: tessdata, key: key)
    }

    /// `Init4` with the settings Tesseract reads only there (docs/library-facts.md, "variables": set afterwards, user words
    /// and the dictionaries are accepted and ignored).
    private static func initialise(_ api: OpaquePointer, tessdata: String, key: EngineKey) throws(LegibleError) {
        var variables: [(String, String)] = []
        var wordsFile: String?
        defer { if let wordsFile { unlink(wordsFile) } }
        if !key.customWords.isEmpty {
            wordsFile = try writeWordsFile(key.customWords)
            variables.append(("user_words_file", wordsFile!))
        }
        if !key.languageCorrection {
            variables += [("load_system_dawg", "0"), ("load_freq_dawg", "0")]
        }
        let names = variables.map { strdup($0.0) }
        let values = variables.map { strdup($0.1) }
        defer { for pointer in names + values { free(pointer) } }
        var namePointers = names
        var valuePointers = values
        // Debian's models are LSTM-only: the legacy engine modes fail to init with them.
        let status = namePointers.withUnsafeMutableBufferPointer { namesBuffer in
            valuePointers.withUnsafeMutableBufferPointer { valuesBuffer in
                TessBaseAPIInit4(
                    api, tessdata, key.modelSpec, OEM_LSTM_ONLY, nil, 0, namesBuffer.baseAddress,
                    valuesBuffer.baseAddress,
                    variables.count, 0)
            }
        }
        if status != 0 {
            throw LegibleError(
                .failedPrecondition,
                "Tesseract cannot load model '\(key.modelSpec)'; reinstall "
                    + key.models.map(ModelCatalog.debianPackage(for:)).joined(separator: ", "))
        }
    }

    /// One word per line in a private temporary file (Tesseract reads user words from a file).
    private static func writeWordsFile(_ words: [String]) throws(LegibleError) -> String {
        var template = Array("/tmp/legible-words-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .system("mkstemp") }
        defer { close(fd) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // A word with a line break would be two words; such input cannot be meant.
        let body = Array(words.map { $0.filter { !$0.isNewline } }.joined(separator: "\n").utf8) + [10]
        let written = body.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == body.count else {
            unlink(path)
            throw .system("write user words")
        }
        return path
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
        TessMonitorDelete(monitor)
    }

    // MARK: Recognition

    public func recognize(
        _ image: GrayImage, request: RecognitionRequest, job: UInt64 = 0, deadline: Duration? = nil
    ) throws(LegibleError) -> RecognizedText {
        let empty = RecognizedText(imageWidth: image.width, imageHeight: image.height)
        // 0x0 works but makes Leptonica log errors; 32768 px or more fails ("Image too large").
        guard image.width > 0, image.height > 0 else { return empty }
        guard image.width < 32768, image.height < 32768 else {
            throw LegibleError(.invalidArgument, "image of \(image.width)x\(image.height) is too large for Tesseract")
        }
        cancellation.begin(job)
        let clock = ContinuousClock()
        let started = clock.now
        setDeadline(deadline)
        let segmentation =
            segmentationOverride
            ?? PageSegmentation.choose(
                mode: request.readsAsPage ? .document : request.mode,
                hasRegionOfInterest: request.hasRegionOfInterest && !request.readsAsPage, models: key.models)
        TessBaseAPISetPageSegMode(api, TessPageSegMode(rawValue: UInt32(segmentation.rawValue)))
        setChoices(request)

        func checkStop() throws(LegibleError) {
            if cancellation.isCancelled { throw LegibleError(.cancelled, "the recognition was cancelled") }
            if let deadline, clock.now - started >= deadline {
                throw LegibleError(.deadlineExceeded, "the recognition took longer than the \(deadline) deadline")
            }
        }

        var best: Reading
        switch request.level {
        case .fast:
            if let hint = request.textHeightHint, hint > Self.fastShrinkAbove,
                let shrunk = LeptonicaImage(image)?.scaled(by: max(0.25, Self.fastWordHeight / hint))
            {
                best = try read(.pix(shrunk, scale: Double(image.width) / Double(shrunk.width)), .global, request)
            } else {
                best = try read(.gray(image), .global, request)
            }
            try checkStop()
        case .accurate:
            let lightText = image.hasLightMarksOnDark(step: 4)
            let base = lightText ? LeptonicaImage(image)?.inverted() : nil
            if request.readsAsPage {
                // A page the detector found (a scan, a document screenshot): FAST's global
                // threshold first, Sauvola's only when that is unsure. Sauvola's pass first read
                // 4 of the tune part's 7 pages worse than FAST (a Devanagari page 0.041 / 0.021).
                best = try read(.gray(image), .global, request)
                try checkStop()
                if best.meanConfidence < Self.accurateRetryBelowConfidence {
                    let reading = try read(base.map { .pix($0, scale: 1) } ?? .gray(image), .adaptive, request)
                    try checkStop()
                    if reading.score > best.score { best = reading }
                }
                break
            }
            best = try read(base.map { .pix($0, scale: 1) } ?? .gray(image), .adaptive, request)
            try checkStop()
            if let height = best.medianWordHeight, height < Self.accurateEnlargeBelow {
                var factor = min(Self.maximumEnlargement, Self.accurateWordHeight / height)
                factor = min(factor, (Self.maximumPixels / Double(image.width * image.height)).squareRoot())
                if factor > 1.2, let enlarged = (base ?? LeptonicaImage(image))?.scaled(by: factor) {
                    let reading = try read(
                        .pix(enlarged, scale: Double(image.width) / Double(enlarged.width)), .adaptive, request)
                    try checkStop()
                    if reading.score > best.score { best = reading }
                }
            }
            if best.meanConfidence < Self.accurateRetryBelowConfidence {
                // Tesseract's own threshold inverts line by line where it reads better, which
                // suits frames with both dark and light text.
                let reading = try read(.gray(image), .global, request)
                try checkStop()
                if reading.score > best.score { best = reading }
            }
        }
        var text = best.text
        text.imageWidth = image.width
        text.imageHeight = image.height
        if let model = singleModel {
            text.blocks = text.blocks.map { block in
                var block = block
                block.lines = block.lines.map { $0.readBy(model) }
                return block
            }
        }
        return text
    }

    /// The engine's model when it has one (lines then say which model read them).
    private var singleModel: String? { key.models.count == 1 ? key.models[0] : nil }

    /// Whether ACCURATE reads an unsure line a second way (Sauvola's threshold) and keeps the
    /// better-scored reading: not with models whose right readings score low
    /// (`Script.readsRightAtLowConfidence`), where the higher score is no better reading. On the
    /// corpus's tune part the retry made ACCURATE's Devanagari row worse than FAST's (0.233
    /// against 0.222), and the same without it (0.222).
    private var comparesLineReadings: Bool {
        !key.models.contains { ModelCatalog.script(ofModel: $0)?.readsRightAtLowConfidence == true }
    }

    /// Reads one rectified text line (a detector's line, cut out and turned horizontal, dark on
    /// light) with Tesseract's single-line segmentation; coordinates are the strip's pixels.
    ///
    /// FAST: one pass with the global threshold (a strip is evenly lit). ACCURATE: also a pass
    /// with Sauvola's threshold when the first is unsure, keeping the better-scoring reading.
    /// Nil when nothing was read.
    public func recognizeLine(
        _ strip: GrayImage, request: RecognitionRequest, job: UInt64 = 0, deadline: Duration? = nil
    ) throws(LegibleError) -> TextLine? {
        try recognizeAlone(strip, segmentation: .singleLine, request: request, job: job, deadline: deadline)
    }

    /// Reads one upright column of vertical text (PSM 5) with a vertical model (`jpn_vert`);
    /// coordinates are the column image's pixels. Nil when nothing was read.
    public func recognizeColumn(
        _ column: GrayImage, request: RecognitionRequest, job: UInt64 = 0, deadline: Duration? = nil
    ) throws(LegibleError) -> TextLine? {
        try recognizeAlone(column, segmentation: .verticalBlock, request: request, job: job, deadline: deadline)
    }

    private func recognizeAlone(
        _ strip: GrayImage, segmentation: PageSegmentation, request: RecognitionRequest, job: UInt64,
        deadline: Duration?
    ) throws(LegibleError) -> TextLine? {
        guard strip.width >= 4, strip.height >= 4, strip.width < 32768, strip.height < 32768 else { return nil }
        cancellation.begin(job)
        setDeadline(deadline)
        TessBaseAPISetPageSegMode(api, TessPageSegMode(rawValue: UInt32(segmentation.rawValue)))
        setChoices(request)
        var best = try read(.gray(strip), .global, request, darkOnLight: true)
        if request.level == .accurate, best.meanConfidence < Self.accurateRetryBelowConfidence,
            comparesLineReadings
        {
            let other = try read(.gray(strip), .adaptive, request, darkOnLight: true)
            if other.score > best.score { best = other }
        }
        // Single-line mode gives one line; should Tesseract still split it, it is one here.
        let line = TextLine.joining(best.text.lines)
        return singleModel.flatMap { model in line?.readBy(model) } ?? line
    }

    /// The monitor's deadline from now; once set it cannot be cleared, so "none" is a month.
    private func setDeadline(_ deadline: Duration?) {
        let milliseconds = deadline.map {
            max(1, Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000))
        }
        TessMonitorSetDeadlineMSecs(monitor, milliseconds ?? Int32.max)
    }

    /// Candidates need Tesseract's CTC choices; their ratings come back through
    /// `100 - coefficient × rating`, clipped at 0, so a small coefficient keeps the
    /// alternatives' ratings (20-70) from all reading 0 (docs/library-facts.md, "choices").
    private func setChoices(_ request: RecognitionRequest) {
        let wantsChoices = request.maxCandidates > 0
        _ = TessBaseAPISetVariable(api, "lstm_choice_mode", wantsChoices ? "2" : "0")
        _ = TessBaseAPISetVariable(api, "lstm_rating_coefficient", wantsChoices ? "0.01" : "5")
    }

    /// What one pass read, and how much confident text that is.
    private struct Reading {
        var text: RecognizedText
        /// Σ over words of characters × how far the confidence is above one half, scaled to
        /// 0…1: a reading with more text read confidently scores higher. On the generated
        /// hard frames (small, inverted, dim, blurred) the best-scoring pass was always the
        /// one with the lowest CER.
        var score: Double
        var meanConfidence: Float
        var medianWordHeight: Double?
    }

    private enum Source {
        case gray(GrayImage)
        /// A Leptonica image and the full-image pixels per pixel of it.
        case pix(LeptonicaImage, scale: Double)
    }

    private enum Threshold: String {
        /// Tesseract's default global (Otsu) threshold.
        case global = "0"
        /// Sauvola's adaptive threshold (Tesseract's thresholding_method 2): it read small,
        /// dim and unevenly lit text that the global threshold lost (README's table).
        case adaptive = "2"
    }

    private func read(
        _ source: Source, _ threshold: Threshold, _ request: RecognitionRequest, darkOnLight: Bool = false
    ) throws(LegibleError)
        -> Reading
    {
        _ = TessBaseAPISetVariable(api, "thresholding_method", threshold.rawValue)
        // Detected lines come made dark on light: Tesseract's second, inverted reading of every
        // unsure line is then wasted work. A whole frame may hold light text anywhere.
        _ = TessBaseAPISetVariable(api, "tessedit_do_invert", darkOnLight ? "0" : "1")
        defer { TessBaseAPIClear(api) }
        let status: Int32
        var scale = 1.0
        var width = 0
        var height = 0
        switch source {
        case .gray(let image):
            // The raw bytes: a row-wise memcpy into a Pix would scramble the byte order (docs/library-facts.md).
            // SetImage copies the pixels, so the buffer need not outlive this call.
            (width, height) = (image.width, image.height)
            image.pixels.withUnsafeBufferPointer { pixels in
                TessBaseAPISetImage(
                    api, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.bytesPerRow))
            }
        case .pix(let image, let factor):
            scale = factor
            (width, height) = (image.width, image.height)
            TessBaseAPISetImage2(api, image.pix)
        }
        try checkNoise(width: width, height: height)
        status = TessBaseAPIRecognize(api, monitor)
        guard status == 0 else {
            if cancellation.isCancelled { throw LegibleError(.cancelled, "the recognition was cancelled") }
            throw LegibleError(.deadlineExceeded, "the recognition was stopped at its deadline")
        }
        var reading = Reading(text: RecognizedText(imageWidth: width, imageHeight: height), score: 0, meanConfidence: 0)
        if let iterator = TessBaseAPIGetIterator(api) {
            defer { TessResultIteratorDelete(iterator) }
            reading.text = walk(iterator, request: request, width: width, height: height)
        }
        let words = reading.text.words
        reading.score = words.reduce(0) { $0 + Double($1.text.count) * Double(max(0, $1.confidence - 0.5) * 2) }
        reading.meanConfidence = words.isEmpty ? 0 : words.reduce(0) { $0 + $1.confidence } / Float(words.count)
        if !words.isEmpty {
            let heights = words.map { Double($0.frame.height) }.sorted()
            reading.medianWordHeight = heights[heights.count / 2]
        }
        if scale != 1 {
            reading.text = reading.text.mapped(by: CoordinateMap(scale: scale))
            reading.medianWordHeight = reading.medianWordHeight.map { $0 * scale }
        }
        return reading
    }

    /// Refuses an image whose layout analysis would hold the engine for long because it is
    /// noise (a camera's sensor in the dark, a fuzzer's frame).
    private func checkNoise(width: Int, height: Int) throws(LegibleError) {
        guard width * height >= NoiseGate.fromPixels, maximumNoise < 1, let binary = TessBaseAPIGetThresholdedImage(api)
        else {
            return
        }
        defer {
            var owned: UnsafeMutablePointer<PIX>? = binary
            pixDestroy(&owned)
        }
        let noise = Self.transitionShare(binary)
        lastNoise = noise
        guard noise <= maximumNoise else {
            throw LegibleError(
                .invalidArgument,
                "the frame is noise, not text (\(Double(Int((noise * 1000).rounded())) / 10) % of neighbouring pixels "
                    + "differ; text stays under \(Int(maximumNoise * 100)) %): its page layout would hold the engine "
                    + "for long")
        }
    }

    /// The share of horizontally neighbouring pixels that differ in a 1-bit image, over every
    /// fourth row (Leptonica's words hold 32 pixels, the leftmost in the top bit).
    static func transitionShare(_ pix: UnsafeMutablePointer<PIX>) -> Double {
        let words = Int(pixGetWidth(pix)) / 32
        let height = Int(pixGetHeight(pix))
        let wordsPerLine = Int(pixGetWpl(pix))
        guard words > 0, height > 0, let data = pixGetData(pix) else { return 0 }
        var differing = 0
        var pairs = 0
        for y in stride(from: 0, to: height, by: 4) {
            let row = data + y * wordsPerLine
            for x in 0..<words {
                let word = row[x]
                differing += ((word ^ (word >> 1)) & 0x7FFF_FFFF).nonzeroBitCount
                if x + 1 < words { differing += Int((word & 1) ^ (row[x + 1] >> 31)) }
            }
            pairs += words * 32 - 1
        }
        return pairs > 0 ? Double(differing) / Double(pairs) : 0
    }

    // MARK: The iterator walk

    /// One result-iterator walk (word level, or symbol level for symbols or candidates),
    /// building each parent's text from its children.
    private func walk(_ iterator: OpaquePointer, request: RecognitionRequest, width: Int, height: Int) -> RecognizedText
    {
        // The page iterator is the result iterator seen as its base class: not to be deleted.
        let page = TessResultIteratorGetPageIterator(iterator)
        let bySymbol = request.includeSymbols || request.maxCandidates > 0
        let level = bySymbol ? RIL_SYMBOL : RIL_WORD
        var tree = TreeBuilder(
            document: request.mode == .document, keepSymbols: request.includeSymbols,
            maxCandidates: min(10, request.maxCandidates))
        repeat {
            // A position without a word (an image block, a page where nothing was read, the
            // end) has nothing to read, and asking Tesseract for its choices there aborts the
            // process (an ASSERT_HOST in ChoiceIterator). Parents close at the next word.
            guard Self.hasElement(page, RIL_WORD) else { continue }
            if TessPageIteratorIsAtBeginningOf(page, RIL_BLOCK) != 0 {
                tree.closeBlock()
            } else if TessPageIteratorIsAtBeginningOf(page, RIL_PARA) != 0 {
                tree.closeParagraph()
            } else if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                tree.closeLine()
            }
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                // Tesseract's own line text knows where the spaces are (a CJK line's "words"
                // are not separated by spaces); one call per line.
                tree.beginLine(text: Self.text(iterator, RIL_TEXTLINE))
            }
            if !bySymbol || TessPageIteratorIsAtBeginningOf(page, RIL_WORD) != 0 {
                tree.closeWord()
                tree.openWord(
                    text: bySymbol ? nil : Self.text(iterator, RIL_WORD),
                    frame: Self.frame(page, RIL_WORD),
                    confidence: Self.confidence(iterator, RIL_WORD),
                    language: language(iterator),
                    isDictionaryWord: TessResultIteratorWordIsFromDictionary(iterator) != 0)
            }
            // A zero-length word has no symbol at its position (same assert for its choices).
            if bySymbol, Self.hasElement(page, RIL_SYMBOL) {
                tree.addSymbol(
                    TextSymbol(
                        text: Self.text(iterator, RIL_SYMBOL), frame: Self.frame(page, RIL_SYMBOL),
                        confidence: Self.confidence(iterator, RIL_SYMBOL)),
                    choices: request.maxCandidates > 0 ? Self.choices(iterator) : [])
            }
        } while TessResultIteratorNext(iterator, level) != 0
        return tree.finish(width: width, height: height)
    }

    /// Whether the iterator stands on an element of `level`: Tesseract's `PageIterator::Empty`,
    /// which the C API exposes only through `BoundingBox` returning false.
    static func hasElement(_ page: OpaquePointer?, _ level: TessPageIteratorLevel) -> Bool {
        var left: Int32 = 0
        var top: Int32 = 0
        var right: Int32 = 0
        var bottom: Int32 = 0
        return TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0
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

    /// The current symbol's alternatives with their CTC ratings (−log likelihood of the path
    /// through that character; lower is likelier), recovered from the choice iterator's
    /// `100 - 0.01 × rating` (set in `recognize`).
    /// The caller checks `hasElement(page, RIL_SYMBOL)` first: the choice iterator asserts on a
    /// position without a word.
    private static func choices(_ iterator: OpaquePointer) -> [SymbolChoice] {
        guard let choice = TessResultIteratorGetChoiceIterator(iterator) else { return [] }
        defer { TessChoiceIteratorDelete(choice) }
        var out: [SymbolChoice] = []
        repeat {
            guard let text = TessChoiceIteratorGetUTF8Text(choice) else { continue }
            let rating = Double(100 - TessChoiceIteratorConfidence(choice)) / 0.01
            out.append(SymbolChoice(text: String(cString: text), rating: rating))
        } while TessChoiceIteratorNext(choice) != 0
        return out
    }

    /// The BCP-47 tag of the model that read the current word (not owned: no free).
    private func language(_ iterator: OpaquePointer) -> String? {
        guard let name = TessResultIteratorWordRecognitionLanguage(iterator) else { return nil }
        let model = String(cString: name)
        if let tag = languageTags[model] { return tag }
        let tag = ModelCatalog.languageTag(for: model)
        languageTags[model] = tag
        return tag
    }
}

@available(*, unavailable, message: "a Tesseract handle belongs to one thread")
extension TesseractEngine: Sendable {}
