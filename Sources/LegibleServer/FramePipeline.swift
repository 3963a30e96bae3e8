internal import LegibleCore
internal import LegibleEntities
internal import LegibleImaging
internal import LegibleSessions
internal import LegibleTesseract
internal import LegibleWire

/// What an engine made of one frame; crosses back from the engine thread to the loop.
enum FrameOutcome: Sendable {
    case recognized(Recognition)
    case failed(LegibleError)

    struct Recognition: Sendable {
        var text: RecognizedText
        var quality: FrameQuality
        var orientation: AppliedOrientation
        /// decode + orient + crop (+ the EXIF read).
        var decodeMicros: UInt32
        /// OSD (when asked for) + recognition + the tree walk.
        var recognizeMicros: UInt32
    }
}

/// What the engine needs to know about a frame beyond its bytes and the session's settings.
struct FrameContext: Sendable {
    /// This recognition's serial (`RecognitionCancellation` stops it by this).
    var serial: UInt64
    /// `--frame-deadline-ms`.
    var deadline: Duration?
    /// Median word height in upright full-image pixels of the session's last result in this
    /// scene, for FAST's shrinking; nil when unknown.
    var textHeightHint: Double?
}

/// decode → orient → crop → recognize for one engine, on that engine's own thread.
///
/// Owns the imager (turbojpeg handle and reused buffers), the Tesseract handle and, once a
/// session asks for `auto_orientation`, an OSD handle; so it is not `Sendable`: it is created
/// by `EngineThread` on its thread and never leaves it.
final class FramePipeline {
    /// OSD turns a frame only at or above this confidence. Tesseract's own `osd` tools use
    /// margins of the same order; on the generated camera frames right answers scored ~4–6
    /// and frames with too little text were not found at all (see the README).
    static let minimumOSDConfidence: Float = 2

    /// Images smaller than this on a side are answered without calling Tesseract (it has
    /// crashed on 1×1 input, and nothing legible fits in fewer pixels).
    static let minimumSide = 8

    private let imager: FrameImager
    private let recognizer: any Recognizer
    private let tessdata: String
    private let thresholds: QualityThresholds
    private var detector: OrientationDetector?

    init(recognizer: any Recognizer, tessdata: String, limits: ImageLimits, thresholds: QualityThresholds = QualityThresholds())
        throws(LegibleError)
    {
        self.imager = try FrameImager(limits: limits)
        self.recognizer = recognizer
        self.tessdata = tessdata
        self.thresholds = thresholds
    }

    func process(_ frame: Frame, settings: SessionSettings, context: FrameContext) -> FrameOutcome {
        // The session validated the encoding and orientation before scheduling the frame.
        guard let encoding = frame.encoding?.known else {
            return .failed(LegibleError(.invalidArgument, "the frame's image has no known encoding"))
        }
        let clock = ContinuousClock()
        let start = clock.now
        do throws(LegibleError) {
            let region = frame.regionOfInterest ?? settings.regionOfInterest
            let stored = try imager.load(
                EncodedImage(
                    encoding: encoding, data: frame.data, width: Int(frame.width), height: Int(frame.height),
                    stride: Int(frame.stride)),
                orientation: frame.orientation?.known,
                decodeScale: fastDecodeScale(frame, settings: settings, context: context, cropped: region != nil))
            var applied = AppliedOrientation(orientation: stored.orientation, source: stored.orientationSource)
            var osdMicros: UInt32 = 0
            if settings.autoOrientation {
                let osdStart = clock.now
                applied = try detectOrientation(stored, applied: applied)
                osdMicros = (clock.now - osdStart).micros
            }
            let upright = try imager.render(stored, orientation: applied.orientation, region: region)
            defer { imager.recycle(upright) }
            let decoded = clock.now

            let image = upright.image
            let full = stored.uprightFullSize(applied.orientation)
            var text = RecognizedText(imageWidth: full.width, imageHeight: full.height)
            if image.width >= Self.minimumSide, image.height >= Self.minimumSide {
                var request = settings.request
                request.hasRegionOfInterest = region != nil
                request.textHeightHint = context.textHeightHint.map { $0 / upright.map.scale }
                text = try recognizer.recognize(image, request: request, job: context.serial, deadline: context.deadline)
                    .mapped(by: upright.map)
                text.imageWidth = full.width
                text.imageHeight = full.height
                if settings.minimumTextHeight > 0 {
                    text = text.droppingLines(lowerThan: Int32((settings.minimumTextHeight * Float(full.height)).rounded()))
                }
                if settings.detectEntities { text.entities = EntityDetector.entities(in: text) }
            }
            let recognized = clock.now
            let measured = image.pixels.withUnsafeBufferPointer { pixels in
                ImageQuality.measure(pixels, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
            }
            let quality = thresholds.judge(
                measured, medianTextHeight: QualityThresholds.medianWordHeight(text), script: settings.script)
            return .recognized(
                FrameOutcome.Recognition(
                    text: text, quality: quality, orientation: applied,
                    decodeMicros: (decoded - start).micros - osdMicros,
                    recognizeMicros: (recognized - decoded).micros + osdMicros))
        } catch {
            return .failed(error)
        }
    }

    /// FAST reads large text from a smaller decode: when the session's last result in this
    /// scene had words taller than the engine's shrink threshold, a JPEG is decoded at the
    /// smallest of libjpeg-turbo's scaling factors (1/2, 5/8, …) that keeps them at least the
    /// engine's target height, which costs less than a full decode and a resize.
    private func fastDecodeScale(_ frame: Frame, settings: SessionSettings, context: FrameContext, cropped: Bool)
        -> JPEGDecodeScale
    {
        guard settings.request.level == .fast, !settings.autoOrientation, !cropped,
            frame.encoding?.known == .jpeg, let hint = context.textHeightHint,
            hint > TesseractEngine.fastShrinkAbove
        else { return .full }
        return .atLeast(TesseractEngine.fastWordHeight / hint)
    }

    /// Runs OSD on the client-oriented image and turns it further when OSD is sure enough.
    private func detectOrientation(_ stored: StoredImage, applied: AppliedOrientation) throws(LegibleError)
        -> AppliedOrientation
    {
        if detector == nil { detector = try OrientationDetector(tessdata: tessdata) }
        let whole = try imager.render(stored, orientation: applied.orientation)
        defer { imager.recycle(whole) }
        guard let found = detector!.detect(whole.image) else { return applied }
        var result = applied
        result.osdRotationDegrees = found.clockwiseCorrection
        result.osdConfidence = found.confidence
        if found.clockwiseCorrection != 0, found.confidence >= Self.minimumOSDConfidence {
            result.orientation = applied.orientation.turned(clockwiseBy: found.clockwiseCorrection)
            result.source = .osd
        }
        return result
    }
}

extension Duration {
    /// Whole microseconds, saturating at UInt32.max (71 minutes).
    var micros: UInt32 {
        let (seconds, attoseconds) = components
        let value = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return UInt32(clamping: max(0, value))
    }
}
