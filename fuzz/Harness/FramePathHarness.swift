internal import LegibleCore
internal import LegibleDetection
internal import LegibleEngine
internal import LegibleImaging
internal import LegibleReading
internal import LegibleSessions
internal import LegibleTesseract
internal import LegibleWire

/// Fuzz target (d): one frame's whole recognition path with real Tesseract — the session's
/// option validation (`SessionStateMachine`: StartSession, then the Frame), then
/// `FramePipeline.process` (decode → orient, OSD → crop → skip check → PP-OCRv4 line detection
/// → Tesseract, PP-OCR's second opinion at ACCURATE → mapping, minimum height, entities,
/// quality), as an engine thread runs it for a session of the default script.
///
/// Input layout (38 header bytes, little-endian, then the image data):
///
/// ```
/// 0      source (mod 13): 0–6 the data is an image in that encoding (JPEG, PNG, GRAY8, RGBA8,
///        BGRA8, NV12, I420); 7 blank, 8 noise, 9 lines, 10 tiny, 11 large, 12 checkerboard:
///        a generated GRAY8 image (`GeneratedImage`), the data unused
/// 1      bit 0 document mode   bit 1 ACCURATE      bit 2 include symbols   bit 3 auto-orientation
///        bit 4 entities        bit 5 recognize unchanged   bit 6 wait for steady
///        bit 7 a 1 ms deadline instead of 5 s
/// 2      bits 0–1 max candidates (0–3)
///        bits 2–3 region of interest: 0 none, 1 the session's, 2 the frame's, 3 both (the frame's wins)
///        bits 4–5 scene: 0 none (a session's first frame); 1 the frame again, with the scene the
///        first reading left; 2 a claimed scene: a uniform thumbnail of gray `parameter` and the
///        claimed text height; 3 as 1 with the claimed text height
///        bit 6 the recognition is cancelled before it starts
/// 3      orientation (mod 9; 0 = unspecified: EXIF, else up)
/// 4      minimum text height, byte / 255 of the image height (0 keeps every line)
/// 5..20  region x, y, width, height (Int32 each, any value)
/// 21..26 width, height, stride (UInt16 each): a raw image's geometry, or the generated size
/// 27     parameter: a generated image's gray, line spacing or cell; the claimed scene's gray
/// 28..29 claimed text height, in quarter pixels (UInt16; 0: none)
/// 30..37 seed of the generated noise
/// 38...  data
/// ```
///
/// One `FramePipeline` for the engine key `eng` (Tesseract's `eng`, the PP-OCRv4 detector at
/// 960 px, PP-OCR's recognizer as ACCURATE's second opinion: the server's defaults) is kept
/// from input to input, as one engine thread keeps it. Every frame has a deadline (5 s, or
/// 1 ms with bit 7 of byte 1); images are limited to 4 MP and generated ones are small, but
/// for the large one (blank up to 4096×4096, so it may pass the limit), so that one input
/// stays well under a few seconds.
///
/// Oracles: a session that does not start had an empty region, a frame not submitted likewise;
/// the outcome is recognized, skipped or failed (never handed off: one script); a failure is
/// INVALID_ARGUMENT, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED or (cancelled only) CANCELLED, and a
/// cancelled recognition never reads; a skip needs a scene (`moving` only while waiting for
/// steady); a recognition has the upright full frame's size (as an imager of its own loads
/// it, turned as the answer says), finite confidences within 0…1 at every level, at most
/// `max_candidates` candidates, no line lower than the minimum height, entities only when
/// asked, and finite quality measures (brightness and contrast 0…255).
public final class FramePathHarness {
    /// ImagingHarness's: no input makes the fuzzer run out of memory on a claimed size.
    static let limits = ImageLimits(maxPixels: 4_000_000, maxSide: 16384)
    /// The engine key every input is read with: the default script's model.
    static let key = EngineKey(models: ["eng"])
    /// A frame's time on the engine: short enough that the fuzzer never waits long on one input.
    static let deadline: Duration = .seconds(5)
    static let shortDeadline: Duration = .milliseconds(1)

    /// A server of one script whose text mode reads detected lines.
    static let configuration: SessionConfiguration = {
        var configuration = SessionConfiguration(
            sessionID: "fuzz", serverVersion: "fuzz",
            limits: ServerLimits(
                maxMessageBytes: 1 << 20, pendingFramesPerSession: 1, workers: 1, replicasPerScript: 1),
            availableScripts: [.latin], installedModels: ["eng"])
        configuration.readsLinesByScript = true
        return configuration
    }()

    private let pipeline: FramePipeline
    private let cancellation = RecognitionCancellation()
    /// Loads each image again, for the size the answer must have.
    private let imager: FrameImager
    /// The recognition serial (never 0: a cancellation of job 0 means none).
    private var serial: UInt64 = 0

    /// Loads Tesseract's `eng`, the detector and PP-OCR's recognizer (a second or so): make one
    /// and keep it.
    public init() {
        let factory = PipelineFactory(
            settings: PipelineFactory.Settings(
                tessdata: TesseractModels.defaultTessdata, maxPixels: Self.limits.maxPixels,
                detector: (TextDetector.defaultModelPath, TextDetector.Options()),
                minimumLineConfidence: LineReader().minimumConfidence,
                ppOCRScripts: [.chinese], recognitionModel: LineTextRecognizer.defaultModelPath,
                secondOpinionBelow: 0.95,  // legibled's defaults, as the detector's options above
                fastSecondOpinionBelow: 0.8, secondOpinionModel: LineTextRecognizer.secondModelPath,
                recognizerFactory: nil))
        do {
            pipeline = try factory.makePipeline(for: Self.key, cancellation: cancellation)
            imager = try FrameImager(limits: Self.limits)
        } catch {
            fatalError("cannot create the frame pipeline: \(error)")
        }
    }

    /// The options, frame and scene an input asks for.
    struct Case {
        var options = RecognitionOptions()
        var frame: Frame
        var scene: SceneChoice
        var claimedTextHeight: Double?
        var claimedGray: UInt8
        var deadline: Duration
        var cancelled: Bool
    }

    enum SceneChoice: Int {
        case none, again, claimed, againWithClaimedHeight
    }

    public func run(_ data: [UInt8]) {
        let input = Self.parse(data)
        guard let settings = Self.settings(input) else { return }
        invariant(settings.engineKey == Self.key, "the session reads with \(settings.engineKey), not eng")
        invariant(settings.lineScripts.isEmpty, "one script, yet lines are read by script")

        var scene = SceneSnapshot(now: .zero)
        if input.scene == .claimed {
            let thumbnail = LumaThumbnail(
                cells: Array(repeating: Float(input.claimedGray), count: LumaThumbnail.width * LumaThumbnail.height))
            scene = SceneSnapshot(
                reference: thumbnail, previous: thumbnail, textHeight: input.claimedTextHeight, now: .seconds(1))
        }
        let outcome = process(input, settings: settings, scene: scene)
        guard input.scene == .again || input.scene == .againWithClaimedHeight,
            case .recognized(let first) = outcome
        else { return }
        // The same frame again, with what the session keeps of the first answer (SceneState).
        let height = QualityThresholds.medianWordHeight(first.text)
        scene = SceneSnapshot(
            reference: first.scene.thumbnail, previous: first.scene.thumbnail, policy: first.scene.policy,
            textHeight: input.scene == .again ? (height > 0 ? Double(height) : nil) : input.claimedTextHeight,
            now: .milliseconds(33))
        _ = process(input, settings: settings, scene: scene)
    }

    /// Reads the input's header (`FramePathHarness`'s layout).
    static func parse(_ data: [UInt8]) -> Case {
        var input = FuzzInput(data)
        let source = Int(input.byte()) % 13
        let flags = input.byte()
        let more = input.byte()
        let orientationByte = Int(input.byte()) % 9
        let minimumHeight = input.byte()
        let region = Rect(
            x: input.integer(Int32.self), y: input.integer(Int32.self), width: input.integer(Int32.self),
            height: input.integer(Int32.self))
        let width = input.integer(UInt16.self)
        let height = input.integer(UInt16.self)
        let stride = input.integer(UInt16.self)
        let parameter = input.byte()
        let claimedHeight = input.integer(UInt16.self)
        var random = SplitMix64(state: input.integer(UInt64.self))

        var options = RecognitionOptions()
        options.mode = flags & 1 != 0 ? .document : .text
        options.level = flags & 2 != 0 ? .accurate : .fast
        options.includeSymbols = flags & 4 != 0
        options.autoOrientation = flags & 8 != 0
        options.detectEntities = flags & 16 != 0
        options.recognizeUnchanged = flags & 32 != 0
        options.waitForSteady = flags & 64 != 0
        options.maxCandidates = UInt32(more & 3)
        options.minimumTextHeight = Float(minimumHeight) / 255
        let regionChoice = (more >> 2) & 3
        if regionChoice & 1 != 0 { options.regionOfInterest = region }

        let image: EncodedImage
        if source < ImageEncoding.allCases.count {
            image = EncodedImage(
                encoding: ImageEncoding.allCases[source], data: input.rest, width: Int(width), height: Int(height),
                stride: Int(stride))
        } else {
            let kind = GeneratedImage.allCases[source - ImageEncoding.allCases.count]
            image = kind.make(
                width: Int(width), height: Int(height), padding: Int(stride % 16), parameter: parameter,
                random: &random)
        }
        var frame = Frame(
            frameID: 1, image: image, orientation: orientationByte == 0 ? nil : Orientation(rawValue: orientationByte))
        if regionChoice & 2 != 0 { frame.regionOfInterest = region }
        return Case(
            options: options, frame: frame, scene: SceneChoice(rawValue: Int(more >> 4) & 3)!,
            claimedTextHeight: claimedHeight == 0 ? nil : Double(claimedHeight) / 4, claimedGray: parameter,
            deadline: flags & 128 != 0 ? shortDeadline : deadline, cancelled: more & 64 != 0)
    }

    /// The session's settings as `SessionStateMachine` makes them from the options; nil when
    /// the session or the frame is refused (then only for an empty region of interest).
    static func settings(_ input: Case) -> SessionSettings? {
        var machine = SessionStateMachine(configuration: configuration)
        let begin = machine.receive(.start(StartSession(options: input.options)))
        guard case .register(let settings) = begin.first else {
            invariant(
                input.options.regionOfInterest?.isEmpty == true,
                "a session of valid options did not start: \(begin)")
            return nil
        }
        let submitted = machine.receive(.frame(input.frame))
        guard case .submit(_, let frameSettings) = submitted.first else {
            invariant(
                input.frame.regionOfInterest?.isEmpty == true || input.frame.data.isEmpty,
                "a valid frame was not submitted: \(submitted)")
            return nil
        }
        invariant(frameSettings == settings, "the frame was submitted with other settings")
        return settings
    }

    /// One frame through the pipeline, and the oracles on its outcome.
    @discardableResult
    func process(_ input: Case, settings: SessionSettings, scene: SceneSnapshot) -> FrameOutcome {
        serial += 1
        if input.cancelled { cancellation.cancel(serial) }
        let outcome = pipeline.process(
            input.frame, settings: settings,
            context: FrameContext(serial: serial, deadline: input.deadline, scene: scene))
        switch outcome {
        case .handedOff(_, let key):
            invariant(false, "a session of one script handed a frame off to \(key)")
        case .failed(let error):
            let expected: Set<LegibleError.Code> =
                input.cancelled
                ? [.invalidArgument, .resourceExhausted, .deadlineExceeded, .cancelled]
                : [.invalidArgument, .resourceExhausted, .deadlineExceeded]
            invariant(expected.contains(error.code), "failed with \(error.code): \(error.message)")
        case .skipped(let skip):
            invariant(scene.reference != nil || scene.previous != nil, "skipped (\(skip.reason)) without a scene")
            invariant(skip.reason != .moving || settings.waitForSteady, "skipped as moving without wait_for_steady")
        case .recognized(let recognition):
            invariant(!input.cancelled, "a cancelled recognition read the frame")
            check(recognition, input, settings: settings)
        }
        return outcome
    }

    func check(_ recognition: FrameOutcome.Recognition, _ input: Case, settings: SessionSettings) {
        let text = recognition.text
        let expected = uprightSize(input.frame, orientation: recognition.orientation.orientation)
        invariant(
            text.imageWidth == expected.width && text.imageHeight == expected.height,
            "result of \(text.imageWidth)x\(text.imageHeight), upright frame \(expected.width)x\(expected.height)")

        let maxCandidates = settings.request.maxCandidates
        func checkConfidence(_ confidence: Float, _ what: String) {
            invariant(
                confidence.isFinite && confidence >= 0 && confidence <= 1, "\(what) has a confidence of \(confidence)")
        }
        func checkCandidates(_ candidates: [Candidate], _ what: String) {
            invariant(
                candidates.count <= maxCandidates, "\(what) has \(candidates.count) of \(maxCandidates) candidates")
            for candidate in candidates { checkConfidence(candidate.confidence, "a candidate of \(what)") }
        }
        func checkWord(_ word: TextElement) {
            checkConfidence(word.confidence, "word '\(word.text)'")
            checkCandidates(word.candidates, "word '\(word.text)'")
            for symbol in word.symbols {
                checkConfidence(symbol.confidence, "symbol '\(symbol.text)'")
                checkCandidates(symbol.candidates, "symbol '\(symbol.text)'")
            }
        }
        let minimumHeight = Int32((settings.minimumTextHeight * Float(text.imageHeight)).rounded())
        for block in text.blocks {
            checkConfidence(block.confidence, "block '\(block.text)'")
            for paragraph in block.paragraphs {
                checkConfidence(paragraph.confidence, "paragraph '\(paragraph.text)'")
                paragraph.words.forEach(checkWord)
            }
            for line in block.lines {
                checkConfidence(line.confidence, "line '\(line.text)'")
                invariant(
                    line.frame.height >= minimumHeight,
                    "line '\(line.text)' of height \(line.frame.height) is under the minimum \(minimumHeight)")
                line.elements.forEach(checkWord)
            }
        }
        invariant(text.entities.isEmpty || settings.detectEntities, "entities that were not asked for")

        let quality = recognition.quality
        invariant(
            quality.sharpness.isFinite && quality.medianTextHeight.isFinite && quality.medianTextHeight >= 0,
            "quality measures \(quality)")
        invariant(
            (0...255).contains(quality.brightness) && (0...255).contains(quality.contrast),
            "brightness \(quality.brightness), contrast \(quality.contrast)")
        invariant(recognition.orientation.osdConfidence.isFinite, "OSD confidence \(recognition.orientation)")
    }

    /// The frame's size upright: as an imager of the harness's own loads it (the size the image
    /// claims, not a scaled decode's), axes swapped for the orientations that turn it a quarter.
    func uprightSize(_ frame: Frame, orientation: Orientation) -> (width: Int, height: Int) {
        guard let encoding = frame.encoding?.known else { return (0, 0) }
        let image = EncodedImage(
            encoding: encoding, data: frame.data, width: Int(frame.width), height: Int(frame.height),
            stride: Int(frame.stride))
        do throws(LegibleError) {
            let stored = try imager.load(image, orientation: frame.orientation?.known)
            let quarterTurn = orientation.rawValue >= 5
            return quarterTurn ? (stored.fullHeight, stored.fullWidth) : (stored.fullWidth, stored.fullHeight)
        } catch {
            invariant(false, "the frame was recognized but does not load again: \(error)")
            return (0, 0)
        }
    }
}

@available(*, unavailable, message: "owns a FramePipeline: one thread")
extension FramePathHarness: Sendable {}

/// The adversarial GRAY8 images an input can ask for instead of bringing its own bytes. Sizes
/// are bounded so that Tesseract reads any of them in well under a second or two.
enum GeneratedImage: CaseIterable {
    /// One gray level (`parameter`), up to 640×480.
    case blank
    /// Black and white pixels from the input's seed, up to 320×240.
    case noise
    /// One-pixel-wide black lines on white, every `parameter % 16 + 2` pixels (bit 4 of
    /// `parameter`: horizontal ones, bit 5: vertical ones, neither: both), up to 640×480.
    case lines
    /// 1×1 to 8×8 random pixels: below the pipeline's minimum side, around Tesseract's.
    case tiny
    /// Up to 4096×4096 (so over the 4 MP limit at times) of one gray with a black border.
    case large
    /// Squares of `parameter % 32 + 1` pixels, up to 320×240.
    case checkerboard

    func make(width: Int, height: Int, padding: Int, parameter: UInt8, random: inout SplitMix64) -> EncodedImage {
        let (maxWidth, maxHeight): (Int, Int)
        switch self {
        case .blank, .lines: (maxWidth, maxHeight) = (640, 480)
        case .noise, .checkerboard: (maxWidth, maxHeight) = (320, 240)
        case .tiny: (maxWidth, maxHeight) = (8, 8)
        case .large: (maxWidth, maxHeight) = (4096, 4096)
        }
        let width = 1 + width % maxWidth
        let height = 1 + height % maxHeight
        let stride = width + padding
        var pixels = [UInt8](repeating: 0, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                pixels[y * stride + x] = pixel(x: x, y: y, width: width, height: height, parameter, &random)
            }
        }
        return EncodedImage(encoding: .gray8, data: pixels, width: width, height: height, stride: stride)
    }

    private func pixel(x: Int, y: Int, width: Int, height: Int, _ parameter: UInt8, _ random: inout SplitMix64)
        -> UInt8
    {
        switch self {
        case .blank:
            return parameter
        case .noise, .tiny:
            return random.below(2) == 0 ? 0 : 255
        case .lines:
            let spacing = Int(parameter % 16) + 2
            let horizontal = parameter & 0x30 != 0x20
            let vertical = parameter & 0x30 != 0x10
            return (horizontal && y % spacing == 0) || (vertical && x % spacing == 0) ? 0 : 255
        case .large:
            return x == 0 || y == 0 || x == width - 1 || y == height - 1 ? 0 : parameter
        case .checkerboard:
            let cell = Int(parameter % 32) + 1
            return (x / cell + y / cell) % 2 == 0 ? 0 : 255
        }
    }
}
