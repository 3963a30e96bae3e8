public import LegibleCore
public import LegibleDetection
internal import LegibleImaging
internal import LegibleReading
internal import LegibleTesseract

/// Builds each engine's `FramePipeline` on that engine's own thread: the recognizer stack of
/// an engine key — Tesseract (or the given `RecognizerFactory`), PP-OCR's recognizer for the
/// lines of its scripts, jpn_vert for columns, the second reader of unsure lines — around the line
/// detectors every engine shares. The server is given one and knows nothing of what is in it.
public struct PipelineFactory: Sendable {
    public struct Settings: Sendable {
        public var tessdata: String
        /// `--max-pixels`: decoded images larger than this are refused.
        public var maxPixels: Int
        /// PP-OCRv4's detection model and its options (`--detector-model`, the input sizes of
        /// `--detector-max-side` and its kin); nil: text mode reads whole frames with
        /// Tesseract's layout analysis (`--detector tesseract`).
        public var detector: (model: String, options: TextDetector.Options)?
        /// The line reader's gate (`--min-line-confidence`).
        public var minimumLineConfidence: LineConfidenceFloor
        /// Scripts whose detected lines PP-OCR's recognizer reads.
        public var ppOCRScripts: Set<Script>
        /// PP-OCR's recognition model.
        public var recognitionModel: String
        /// ACCURATE re-reads a line under this confidence with a second model (0: never).
        public var secondOpinionBelow: Float
        /// FAST re-reads a line under this confidence with the same second model (0: never).
        public var fastSecondOpinionBelow: Float
        /// The PP-OCR model of those second readings.
        public var secondOpinionModel: String
        /// `eng`'s lines with words outside its dictionary are read again for their accents
        /// (`--accent-check`; `SecondOpinionRecognizer.checksAccents`).
        public var checksAccents: Bool
        /// Replaces Tesseract (tests, calibration): no detector, no second opinion.
        public var recognizerFactory: RecognizerFactory?
        /// A page image this noisy is refused before Tesseract's layout (`NoiseGate`, `--max-noise`).
        public var maximumNoise: Double

        public init(
            tessdata: String, maxPixels: Int, detector: (model: String, options: TextDetector.Options)?,
            minimumLineConfidence: LineConfidenceFloor,
            ppOCRScripts: Set<Script>, recognitionModel: String, secondOpinionBelow: Float,
            fastSecondOpinionBelow: Float, secondOpinionModel: String, checksAccents: Bool = true,
            recognizerFactory: RecognizerFactory?, maximumNoise: Double = NoiseGate.defaultMaximumShare
        ) {
            self.checksAccents = checksAccents
            self.maximumNoise = maximumNoise
            self.tessdata = tessdata
            self.maxPixels = maxPixels
            self.detector = recognizerFactory == nil ? detector : nil
            self.minimumLineConfidence = minimumLineConfidence
            self.ppOCRScripts = ppOCRScripts
            self.recognitionModel = recognitionModel
            self.secondOpinionBelow = secondOpinionBelow
            self.secondOpinionModel = secondOpinionModel
            self.fastSecondOpinionBelow = fastSecondOpinionBelow
            self.recognizerFactory = recognizerFactory
        }
    }

    private let settings: Settings
    /// Text mode's line detectors, shared by the engines (nil: whole frames).
    private let lineDetectors: LineDetectorPool?

    public init(settings: Settings) {
        self.settings = settings
        if let detector = settings.detector {
            let (model, options) = detector
            lineDetectors = LineDetectorPool { () throws(LegibleError) in
                let detector = try TextDetector(modelPath: model, options: options)
                try detector.warmUp()
                return detector
            }
        } else {
            lineDetectors = nil
        }
    }

    /// Text mode finds lines with a detector (so a session of several scripts can have each
    /// line read by its script's engine).
    public var readsLines: Bool { lineDetectors != nil }

    /// The pipeline of one engine; call it on the engine's own thread (the pipeline never
    /// leaves it). Throws what keeps the engine from loading (a missing model).
    public func makePipeline(for key: EngineKey, cancellation: RecognitionCancellation) throws -> FramePipeline {
        let engine = try makeRecognizer(for: key, cancellation: cancellation)
        // The first engine makes (and warms up) the first detector, so that neither a missing
        // model nor the compilation waits for a session's first frame.
        try lineDetectors?.withDetector { _ in }
        return try FramePipeline(
            recognizer: engine, lineDetectors: lineDetectors,
            lineReader: LineReader(minimumConfidence: settings.minimumLineConfidence), tessdata: settings.tessdata,
            limits: ImageLimits(maxPixels: settings.maxPixels))
    }

    /// The recognizer stack `makePipeline` reads an engine key's frames and lines with (also
    /// `legible-floor`'s, so that the benchmarks' floor reads exactly as legibled does).
    public func makeRecognizer(for key: EngineKey, cancellation: RecognitionCancellation) throws -> any Recognizer {
        let tessdata = settings.tessdata
        var engine: any Recognizer =
            if let factory = settings.recognizerFactory {
                try factory(key, cancellation)
            } else {
                try TesseractEngine(tessdata: tessdata, key: key, cancellation: cancellation)
            }
        if let tesseract = engine as? TesseractEngine { tesseract.maximumNoise = settings.maximumNoise }
        if lineDetectors != nil {
            if key.models.contains(where: {
                ModelCatalog.script(ofModel: $0).map(settings.ppOCRScripts.contains) ?? false
            }) {
                // Detected lines of these scripts are read by PP-OCR's model; whole frames stay Tesseract's.
                engine = PPOCRLineRecognizer(
                    base: engine, model: try LineTextRecognizer(modelPath: settings.recognitionModel))
            } else if key.models.count == 1, let tesseract = engine as? TesseractEngine,
                let vertical = VerticalTextRecognizer.verticalModel(of: key.models[0]),
                TesseractModels.isInstalled(vertical, in: tessdata)
            {
                // Lines of a script with a vertical model installed (jpn_vert) may be columns.
                engine = try VerticalTextRecognizer(base: tesseract, tessdata: tessdata)
            }
            // FAST's second readings need the second reader as much as ACCURATE's do.
            if settings.secondOpinionBelow > 0 || settings.fastSecondOpinionBelow > 0,
                let second = try secondOpinion(for: key, cancellation: cancellation, base: engine)
            {
                engine = SecondOpinionRecognizer(
                    base: engine, second: second, below: settings.secondOpinionBelow,
                    fastBelow: settings.fastSecondOpinionBelow,
                    checksAccents: settings.checksAccents && key.models == [Self.modelWithoutAccents])
            }
        }
        return engine
    }

    /// The Latin model without accented capitals and with few accented letters at all, whose
    /// lines the accent check reads again.
    static let modelWithoutAccents = "eng"

    /// The second reader of an engine's unsure lines (ACCURATE's and FAST's): PP-OCRv6's model
    /// for Latin (kept to Latin letters), Chinese and Japanese; `hin` for `Devanagari` and back;
    /// nil for others. Chosen on the corpus's tune part, one run each, the intermediate ones with
    /// code not kept (ACCURATE's CER 0.211 with PP-OCRv4 for Latin and Tesseract's `Japanese`
    /// for `jpn`; 0.201 with v6 for Latin, 0.194 with v6 for all three).
    private func secondOpinion(for key: EngineKey, cancellation: RecognitionCancellation, base: any Recognizer)
        throws -> (any Recognizer)?
    {
        guard key.models.count == 1, let model = key.models.first else { return nil }
        if let script = ModelCatalog.script(ofModel: model), [.latin, .chinese, .japanese].contains(script) {
            let keeping = script == .latin ? PPOCRLineRecognizer.characters(of: .latin) : nil
            return PPOCRLineRecognizer(
                base: base, model: try LineTextRecognizer(modelPath: settings.secondOpinionModel, keeping: keeping))
        }
        let others = ["Devanagari": "hin", "hin": "Devanagari"]
        guard let other = others[model] else { return nil }
        return try TesseractEngine(
            tessdata: settings.tessdata, key: EngineKey(models: [other]), cancellation: cancellation)
    }
}
