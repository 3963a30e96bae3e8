public import LegibleCore
internal import LegibleEntities
internal import LegibleImaging
internal import LegibleReading
public import LegibleSessions
internal import LegibleTesseract
public import LegibleWire

/// What an engine made of one frame; crosses back from the engine thread to the loop.
public enum FrameOutcome: Sendable, Codable {
    case recognized(Recognition)
    case skipped(Skip)
    case failed(LegibleError)
    /// Read in part: the rest of the frame's lines are for an engine of this key (another
    /// script's), which goes on with `FramePipeline.continueReading`.
    case handedOff(LineHandOff, to: EngineKey)

    public typealias Scene = SceneObservation
    public typealias Skip = EngineAnswer.Skip
    public typealias Recognition = EngineAnswer.Recognition
}

/// A frame read script by script, between two engines: the upright image, its lines and
/// what has been read of them, and what the last engine needs to answer the frame.
public struct LineHandOff: Sendable, Codable {
    /// Lines still to read by other scripts' engines, or (`pageScript`) a page whose script
    /// OSD found, to be read whole by that script's engine.
    var routing: ScriptRouting
    var pageScript: Script? = nil
    var image: GrayImage
    var request: RecognitionRequest
    /// The frame's deadline, spent across the engines.
    var time: TimeLimit
    var answer: PendingAnswer
}

/// What answering a frame needs once its text is read.
struct PendingAnswer: Sendable, Codable {
    /// Upright (cropped, scaled) image pixels → the full upright frame's.
    var map: CoordinateMap
    var fullWidth: Int
    var fullHeight: Int
    var measured: ImageQuality
    var scene: FrameOutcome.Scene
    var orientation: AppliedOrientation
    var decodeMicros: UInt32
    /// Recognition time so far (OSD included), over every engine that read the frame.
    var recognizeMicros: UInt32
}

/// What the engine needs to know about a frame beyond its bytes and the session's settings.
public struct FrameContext: Sendable, Codable {
    /// This recognition's serial (`RecognitionCancellation` stops it by this).
    public var serial: UInt64
    /// `--frame-deadline-ms`.
    public var deadline: Duration?
    /// The session's past: what to compare this frame with, and its text size.
    public var scene: SceneSnapshot

    public init(serial: UInt64, deadline: Duration?, scene: SceneSnapshot) {
        self.serial = serial
        self.deadline = deadline
        self.scene = scene
    }
}

/// decode → orient → crop → recognize for one engine, on that engine's own thread.
///
/// Owns the imager (turbojpeg handle and reused buffers), the Tesseract handle and, once a
/// session asks for `auto_orientation`, an OSD handle; so it is not `Sendable`: it is created
/// by `EngineThread` on its thread and never leaves it.
public final class FramePipeline {
    /// OSD turns a frame only at or above this confidence. Tesseract's own `osd` tools use
    /// margins of the same order; on the generated camera frames right answers scored ~4–6
    /// and frames with too little text were not found at all (see the README).
    static let minimumOSDConfidence: Float = 2

    /// Images smaller than this on a side are answered without calling Tesseract (it has
    /// crashed on 1×1 input, and nothing legible fits in fewer pixels).
    static let minimumSide = 8

    private let imager: FrameImager
    private let recognizer: any Recognizer
    /// Text mode finds lines with it and reads each alone; nil keeps Tesseract's own layout
    /// analysis (`--detector tesseract`).
    private let lineDetectors: LineDetectorPool?
    private let lineReader: LineReader
    private let tessdata: String
    private let thresholds: QualityThresholds
    private var detector: OrientationDetector?
    /// The sessions' capture goals, compiled once (patterns included) rather than per frame.
    private var captureFinders = CaptureFinderCache()

    init(
        recognizer: any Recognizer, lineDetectors: LineDetectorPool? = nil, lineReader: LineReader = LineReader(),
        tessdata: String, limits: ImageLimits,
        thresholds: QualityThresholds = QualityThresholds()
    )
        throws(LegibleError)
    {
        self.imager = try FrameImager(limits: limits)
        self.recognizer = recognizer
        self.lineDetectors = lineDetectors
        self.lineReader = lineReader
        self.tessdata = tessdata
        self.thresholds = thresholds
    }

    public func process(_ frame: Frame, settings: SessionSettings, context: FrameContext) -> FrameOutcome {
        // The session validated the encoding and orientation before scheduling the frame.
        guard let encoding = frame.encoding?.known else {
            return .failed(LegibleError(.invalidArgument, "the frame's image has no known encoding"))
        }
        let clock = ContinuousClock()
        let start = clock.now
        // From here a cancel for this job stops it: between the steps below, and in Tesseract
        // between words.
        let cancellation = recognizer.cancellation
        cancellation.begin(context.serial)
        func checkCancelled() throws(LegibleError) {
            if cancellation.isCancelled { throw LegibleError(.cancelled, "the recognition was cancelled") }
        }
        do throws(LegibleError) {
            let region = frame.regionOfInterest ?? settings.regionOfInterest
            let encoded = EncodedImage(
                encoding: encoding, data: frame.data, width: Int(frame.width), height: Int(frame.height),
                stride: Int(frame.stride))
            var stored = try imager.load(
                encoded, orientation: frame.orientation?.known,
                decodeScale: fastDecodeScale(frame, settings: settings, context: context, cropped: region != nil))
            var applied = AppliedOrientation(orientation: stored.orientation, source: stored.orientationSource)
            var osdMicros: UInt32 = 0
            if settings.autoOrientation {
                let osdStart = clock.now
                applied = try detectOrientation(stored, applied: applied)
                osdMicros = (clock.now - osdStart).micros
            }
            var upright = try imager.render(stored, orientation: applied.orientation, region: region)

            // Is it worth reading? ~0.1 ms of thumbnail against ~100 ms of recognition.
            let thumbnail = LumaThumbnail(upright.image)
            let snapshot = context.scene
            var scene = FrameOutcome.Scene(
                thumbnail: thumbnail, policy: snapshot.policy,
                sceneDifference: snapshot.reference.map(thumbnail.difference) ?? 0,
                motion: snapshot.previous.map(thumbnail.difference) ?? 0)
            let decision = scene.policy.decide(
                sceneDifference: snapshot.reference.map { _ in scene.sceneDifference },
                motion: snapshot.previous.map { _ in scene.motion }, recognizeUnchanged: settings.recognizeUnchanged,
                waitForSteady: settings.waitForSteady, now: snapshot.now)
            if case .skip(let reason) = decision {
                imager.recycle(upright)
                return .skipped(
                    FrameOutcome.Skip(
                        reason: reason, scene: scene, orientation: applied,
                        decodeMicros: (clock.now - start).micros - osdMicros))
            }
            try checkCancelled()
            let hint = textHeightHint(context, scene)
            if hint == nil, stored.isScaledDown {
                // Decoded small for the last scene's large text, but this is another scene.
                imager.recycle(upright)
                stored = try imager.load(encoded, orientation: frame.orientation?.known)
                upright = try imager.render(stored, orientation: applied.orientation, region: region)
            }
            defer { imager.recycle(upright) }
            let decoded = clock.now
            try checkCancelled()

            let image = upright.image
            let full = stored.uprightFullSize(applied.orientation)
            let measured = image.pixels.withUnsafeBufferPointer { pixels in
                ImageQuality.measure(pixels, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
            }
            var answer = PendingAnswer(
                map: upright.map, fullWidth: full.width, fullHeight: full.height, measured: measured, scene: scene,
                orientation: applied, decodeMicros: (decoded - start).micros - osdMicros, recognizeMicros: osdMicros)
            guard image.width >= Self.minimumSide, image.height >= Self.minimumSide else {
                return self.answer(RecognizedText(imageWidth: image.width, imageHeight: image.height), answer, settings)
            }
            var request = settings.request
            request.hasRegionOfInterest = region != nil
            request.textHeightHint = hint.map { $0 / upright.map.scale }
            let read = try self.read(
                image, request: request, settings: settings, context: context, scalesUp: upright.map.scale <= 1,
                checkCancelled: checkCancelled)
            answer.recognizeMicros += (clock.now - decoded).micros
            switch read {
            case .text(let text):
                return self.answer(text, answer, settings)
            case .handOff(let routing, let time):
                return handOff(
                    LineHandOff(routing: routing, image: image, request: request, time: time, answer: answer),
                    settings: settings)
            case .handOffPage(let script, let time):
                return handOff(
                    LineHandOff(
                        routing: ScriptRouting(scripts: [script], lines: []), pageScript: script, image: image,
                        request: request, time: time, answer: answer),
                    settings: settings)
            }
        } catch {
            return .failed(error)
        }
    }

    /// Reads the lines of a frame handed over by another script's engine that this engine's
    /// script is to read, then hands the frame on or answers it.
    public func continueReading(_ handOff: LineHandOff, settings: SessionSettings, context: FrameContext)
        -> FrameOutcome
    {
        let clock = ContinuousClock()
        let start = clock.now
        recognizer.cancellation.begin(context.serial)
        guard let script = settings.lineScripts.first(where: { $0.key == recognizer.key })?.script else {
            return .failed(LegibleError(.internal, "a frame was handed to an engine of none of its session's scripts"))
        }
        var next = handOff
        if handOff.pageScript != nil {
            var page = handOff.request
            page.readsAsPage = true
            do throws(LegibleError) {
                let text = try recognizer.recognize(
                    handOff.image, request: page, job: context.serial, deadline: handOff.time.remaining())
                next.answer.recognizeMicros += (clock.now - start).micros
                return answer(text, next.answer, settings)
            } catch {
                return .failed(error)
            }
        }
        do throws(LegibleError) {
            try lineReader.read(
                next.image, routing: &next.routing, script: script, recognizer: recognizer, request: next.request,
                job: context.serial, time: next.time)
        } catch {
            return .failed(error)
        }
        next.answer.recognizeMicros += (clock.now - start).micros
        return self.handOff(next, settings: settings)
    }

    /// Hands the frame to the engine of the next script its lines want, or answers it when
    /// every line is read.
    private func handOff(_ handOff: LineHandOff, settings: SessionSettings) -> FrameOutcome {
        if let script = handOff.pageScript ?? handOff.routing.nextScript,
            let key = settings.lineScripts.first(where: { $0.script == script })?.key
        {
            return .handedOff(handOff, to: key)
        }
        let text = lineReader.assemble(
            handOff.routing.readings.map { ($0.line, $0.toImage) }, width: handOff.image.width,
            height: handOff.image.height)
        return answer(text, handOff.answer, settings)
    }

    /// The frame's result from its text in the upright (cropped, scaled) image's pixels.
    private func answer(_ read: RecognizedText, _ answer: PendingAnswer, _ settings: SessionSettings) -> FrameOutcome {
        let clock = ContinuousClock()
        let start = clock.now
        var text = read.mapped(by: answer.map)
        text.imageWidth = answer.fullWidth
        text.imageHeight = answer.fullHeight
        if settings.minimumTextHeight > 0 {
            text = text.droppingLines(
                lowerThan: Int32((settings.minimumTextHeight * Float(answer.fullHeight)).rounded()))
        }
        // Lines read one by one come in blocks; a page read whole has its paragraphs already.
        if settings.request.mode == .document { text = text.paragraphed(keepSymbols: settings.request.includeSymbols) }
        if settings.detectEntities { text.entities = EntityDetector.entities(in: text) }
        let candidates =
            settings.captureGoals.isEmpty
            ? [] : captureFinders.finder(for: settings.captureGoals)?.candidates(in: text) ?? []
        let quality = thresholds.judge(
            answer.measured, medianTextHeight: QualityThresholds.medianWordHeight(text), script: settings.script)
        return .recognized(
            FrameOutcome.Recognition(
                text: text, quality: quality, orientation: answer.orientation, decodeMicros: answer.decodeMicros,
                recognizeMicros: answer.recognizeMicros + (clock.now - start).micros, scene: answer.scene,
                captureCandidates: candidates))
    }

    /// What reading the upright image gave: its text, or the frame's lines partly read and to
    /// be handed to another script's engine.
    private enum ReadOutcome {
        case text(RecognizedText)
        case handOff(ScriptRouting, TimeLimit)
        /// A page of another script, by OSD: read whole by that script's engine.
        case handOffPage(Script, TimeLimit)
    }

    /// The text of the upright (cropped, maybe scaled) image, in its pixels: with a line
    /// detector, line by line (`LineReader`; script by script for a session of several
    /// scripts) unless the lines make a page; otherwise Tesseract's page layout. Document mode
    /// reads as text mode does (on the corpus's tune part its page layout read every kind of
    /// image worse, pages too: README "Document mode"); `answer` gives it its paragraphs.
    /// `scalesUp`: the detector may enlarge a small image — not one decoded smaller than the
    /// frame for its large text (the fast decode scale), which would undo that saving.
    private func read(
        _ image: GrayImage, request: RecognitionRequest, settings: SessionSettings, context: FrameContext,
        scalesUp: Bool, checkCancelled: () throws(LegibleError) -> Void
    ) throws(LegibleError) -> ReadOutcome {
        guard let lineDetectors else {
            return .text(
                try recognizer.recognize(image, request: request, job: context.serial, deadline: context.deadline))
        }
        let time = TimeLimit(context.deadline)
        let lines = try lineDetectors.withDetector { (detector) throws(LegibleError) in
            try detector.detectLines(inPadded: image, level: request.level, scalesUp: scalesUp)
        }
        try checkCancelled()
        if LineReader.looksLikePage(lines, width: image.width, height: image.height) {
            // A page of several candidate scripts: OSD has enough characters on a page to
            // name its script (unlike on one line), and the page goes whole to that engine.
            if settings.readsLinesByScript, let own = settings.lineScripts.first?.script,
                let script = try pageScript(image, candidates: settings.lineScripts.map(\.script)), script != own
            {
                return .handOffPage(script, time)
            }
            var page = request
            page.readsAsPage = true
            return .text(
                try recognizer.recognize(image, request: page, job: context.serial, deadline: time.remaining()))
        }
        guard settings.readsLinesByScript, let first = settings.lineScripts.first else {
            return .text(
                try lineReader.read(
                    image, lines: lines, recognizer: recognizer, request: request, job: context.serial, time: time))
        }
        var routing = ScriptRouting(
            scripts: settings.lineScripts.map(\.script),
            lines: lines.filter { $0.score >= lineReader.minimumDetectionScore })
        try lineReader.read(
            image, routing: &routing, script: first.script, recognizer: recognizer, request: request,
            job: context.serial, time: time)
        guard routing.nextScript == nil else { return .handOff(routing, time) }
        return .text(
            lineReader.assemble(
                routing.readings.map { ($0.line, $0.toImage) }, width: image.width, height: image.height))
    }

    /// The script OSD finds on a page, among `candidates`; nil when it is not sure or finds
    /// none of them.
    private func pageScript(_ image: GrayImage, candidates: [Script]) throws(LegibleError) -> Script? {
        if detector == nil { detector = try OrientationDetector(tessdata: tessdata) }
        guard let found = detector!.detect(image), found.scriptConfidence >= Self.minimumScriptConfidence else {
            return nil
        }
        return found.script(among: candidates)
    }

    /// OSD's script confidence below which a page stays with the session's first script.
    static let minimumScriptConfidence: Float = 1

    /// FAST reads large text from a smaller decode: when the session's last result in this
    /// scene had words taller than the engine's shrink threshold, a JPEG is decoded at the
    /// smallest of libjpeg-turbo's scaling factors (1/2, 5/8, …) that keeps them at least the
    /// engine's target height, which costs less than a full decode and a resize.
    private func fastDecodeScale(_ frame: Frame, settings: SessionSettings, context: FrameContext, cropped: Bool)
        -> JPEGDecodeScale
    {
        guard settings.request.level == .fast, !settings.autoOrientation, !cropped,
            frame.encoding?.known == .jpeg, let hint = context.scene.textHeight,
            context.scene.reference != nil,
            hint > TesseractEngine.fastShrinkAbove
        else { return .full }
        return .atLeast(TesseractEngine.fastWordHeight / hint)
    }

    /// The scene's text size when this frame shows the same scene (its difference from the last
    /// recognized frame is under a cut), for FAST's shrinking.
    private func textHeightHint(_ context: FrameContext, _ scene: FrameOutcome.Scene) -> Double? {
        guard context.scene.reference != nil, scene.sceneDifference < SceneObservation.sceneCut else { return nil }
        return context.scene.textHeight
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

/// Compiled `CaptureFinder`s by their goals, for one engine's thread: a session's patterns are
/// compiled once, not on every frame. Bounded: when full it starts afresh, so RE2's automata
/// of one engine stay under `capacity` × `CaptureFinder.maxGoals` × `LinearPattern.maxMemoryBytes`
/// (128 MiB at the very most), and sessions that come and go cost a recompile of their
/// patterns.
struct CaptureFinderCache {
    static let capacity = 8
    private var finders: [[CaptureGoal]: CaptureFinder] = [:]

    /// nil when the goals do not make a finder (the session checked them, so only a goal list
    /// this engine was never meant to see).
    mutating func finder(for goals: [CaptureGoal]) -> CaptureFinder? {
        if let finder = finders[goals] { return finder }
        guard let finder = try? CaptureFinder(goals: goals) else { return nil }
        if finders.count >= Self.capacity { finders.removeAll() }
        finders[goals] = finder
        return finder
    }
}
