internal import CProtobufC
internal import LegibleCore
internal import LegibleProtoC
internal import LegibleWire

// Swift model → protobuf-c structs. Every struct, string and array comes from the arena and
// lives until the arena does, that is, until the enclosing `EncodeArena.using` returns (after
// pack). Nothing here encodes bytes itself: the generated `*__pack` does that.

extension EncodeArena {
    // MARK: Client → server

    func startSession(_ start: StartSession) -> UnsafeMutablePointer<Legible__V1__StartSession> {
        let m = message(legible__v1__start_session__init)
        m.pointee.protocol_version = start.protocolVersion
        set(&m.pointee.client_name, start.clientName)
        set(&m.pointee.auth_token, start.authToken)
        m.pointee.options = options(start.options)
        return m
    }

    func updateSession(_ update: UpdateSession) -> UnsafeMutablePointer<Legible__V1__UpdateSession> {
        let m = message(legible__v1__update_session__init)
        m.pointee.options = options(update.options)
        return m
    }

    func options(_ options: RecognitionOptions) -> UnsafeMutablePointer<Legible__V1__RecognitionOptions> {
        let m = message(legible__v1__recognition_options__init)
        (m.pointee.n_scripts, m.pointee.scripts) = values(options.scripts) {
            Legible__V1__Script(rawValue: wireEnumValue($0.rawValue))
        }
        (m.pointee.n_language_hints, m.pointee.language_hints) = cStrings(options.languageHints)
        m.pointee.mode = Legible__V1__Mode(rawValue: wireEnumValue(options.mode?.rawValue ?? 0))
        m.pointee.level = Legible__V1__Level(rawValue: wireEnumValue(options.level?.rawValue ?? 0))
        (m.pointee.n_custom_words, m.pointee.custom_words) = cStrings(options.customWords)
        m.pointee.region_of_interest = options.regionOfInterest.map(rect)
        m.pointee.max_candidates = options.maxCandidates
        m.pointee.include_symbols = protobufBool(options.includeSymbols)
        m.pointee.auto_orientation = protobufBool(options.autoOrientation)
        m.pointee.language_correction = Legible__V1__LanguageCorrection(
            rawValue: options.languageCorrection.map { $0 ? 1 : 2 } ?? 0)
        m.pointee.minimum_text_height = options.minimumTextHeight
        m.pointee.detect_entities = protobufBool(options.detectEntities)
        m.pointee.max_frame_age_ms = options.maxFrameAgeMillis
        m.pointee.stable_after = options.stableAfter
        m.pointee.wait_for_steady = protobufBool(options.waitForSteady)
        m.pointee.recognize_unchanged = protobufBool(options.recognizeUnchanged)
        m.pointee.automatically_detect_script = protobufBool(options.automaticallyDetectScript)
        (m.pointee.n_capture_goals, m.pointee.capture_goals) = messages(options.captureGoals, captureGoal)
        return m
    }

    func captureGoal(_ goal: CaptureGoal) -> UnsafeMutablePointer<Legible__V1__CaptureGoal> {
        let m = message(legible__v1__capture_goal__init)
        set(&m.pointee.name, goal.name)
        switch goal.target {
        case .entity(let kind):
            m.pointee.target_case = LEGIBLE__V1__CAPTURE_GOAL__TARGET_ENTITY
            m.pointee.entity = Legible__V1__EntityKind(rawValue: wireEnumValue(kind.rawValue))
        case .pattern(let pattern):
            m.pointee.target_case = LEGIBLE__V1__CAPTURE_GOAL__TARGET_PATTERN
            set(&m.pointee.pattern, pattern)
        }
        m.pointee.confirmations = UInt32(clamping: goal.confirmations)
        m.pointee.end_when_captured = protobufBool(goal.endWhenCaptured)
        return m
    }

    func capture(_ capture: Capture) -> UnsafeMutablePointer<Legible__V1__Capture> {
        let m = message(legible__v1__capture__init)
        set(&m.pointee.goal, capture.goal)
        set(&m.pointee.value, capture.value)
        (m.pointee.n_frames, m.pointee.frames) = messages(capture.frames, rect)
        m.pointee.confidence = capture.confidence
        m.pointee.confirmations = UInt32(clamping: capture.confirmations)
        m.pointee.captured = protobufBool(capture.captured)
        return m
    }

    /// `data` must be `frame.data`'s storage and stay valid until pack returns; it is not
    /// copied (an image is by far the largest thing we send).
    func frame(_ frame: Frame, data: UnsafeBufferPointer<UInt8>) -> UnsafeMutablePointer<Legible__V1__Frame> {
        let m = message(legible__v1__frame__init)
        m.pointee.frame_id = frame.frameID
        let image = message(legible__v1__image__init)
        image.pointee.encoding = Legible__V1__Encoding(rawValue: wireEnumValue(frame.encoding?.rawValue ?? 0))
        // pack only reads through this pointer; the field is `uint8_t *` for unpack's sake.
        image.pointee.data = ProtobufCBinaryData(
            len: data.count, data: UnsafeMutablePointer(mutating: data.baseAddress))
        image.pointee.width = frame.width
        image.pointee.height = frame.height
        image.pointee.stride = frame.stride
        m.pointee.image = image
        m.pointee.orientation = Legible__V1__Orientation(rawValue: wireEnumValue(frame.orientation?.rawValue ?? 0))
        m.pointee.region_of_interest = frame.regionOfInterest.map(rect)
        m.pointee.client_timestamp_us = frame.clientTimestampMicros
        return m
    }

    func ping(_ nonce: UInt64) -> UnsafeMutablePointer<Legible__V1__Ping> {
        let m = message(legible__v1__ping__init)
        m.pointee.nonce = nonce
        return m
    }

    func endSession() -> UnsafeMutablePointer<Legible__V1__EndSession> {
        message(legible__v1__end_session__init)
    }

    // MARK: Server → client

    func sessionStarted(_ started: SessionStarted) -> UnsafeMutablePointer<Legible__V1__SessionStarted> {
        let m = message(legible__v1__session_started__init)
        set(&m.pointee.session_id, started.sessionID)
        set(&m.pointee.server_version, started.serverVersion)
        m.pointee.protocol_version = started.protocolVersion
        let limits = message(legible__v1__server_limits__init)
        limits.pointee.max_message_bytes = started.limits.maxMessageBytes
        limits.pointee.pending_frames_per_session = started.limits.pendingFramesPerSession
        limits.pointee.workers = started.limits.workers
        limits.pointee.replicas_per_script = started.limits.replicasPerScript
        limits.pointee.max_sessions = started.limits.maxSessions
        limits.pointee.frame_deadline_ms = started.limits.frameDeadlineMillis
        m.pointee.limits = limits
        (m.pointee.n_available_scripts, m.pointee.available_scripts) = values(started.availableScripts) {
            Legible__V1__Script(rawValue: wireEnumValue($0.rawValue))
        }
        (m.pointee.n_engines, m.pointee.engines) = messages(started.engines) { engine in
            let e = message(legible__v1__engine_info__init)
            e.pointee.script = Legible__V1__Script(rawValue: wireEnumValue(engine.script.rawValue))
            set(&e.pointee.model, engine.model)
            e.pointee.replicas = engine.replicas
            e.pointee.loaded = engine.loaded
            return e
        }
        return m
    }

    func frameResult(_ result: FrameResult) -> UnsafeMutablePointer<Legible__V1__FrameResult> {
        let m = message(legible__v1__frame_result__init)
        m.pointee.frame_id = result.frameID
        m.pointee.status = Legible__V1__FrameStatus(rawValue: wireEnumValue(result.status.rawValue))
        m.pointee.text = result.text.map(text)
        m.pointee.timing = result.timing.map(timing)
        m.pointee.changes = result.changes.map(changes)
        m.pointee.quality = result.quality.map(quality)
        m.pointee.error = result.error.map(error)
        m.pointee.orientation = result.orientation.map(appliedOrientation)
        m.pointee.skip_reason = Legible__V1__SkipReason(rawValue: wireEnumValue(result.skipReason?.rawValue ?? 0))
        m.pointee.stable = protobufBool(result.stable)
        m.pointee.scene_difference = result.sceneDifference
        m.pointee.motion = result.motion
        (m.pointee.n_captures, m.pointee.captures) = messages(result.captures, capture)
        return m
    }

    func quality(_ quality: FrameQuality) -> UnsafeMutablePointer<Legible__V1__QualityHints> {
        let m = message(legible__v1__quality_hints__init)
        m.pointee.sharpness = quality.sharpness
        m.pointee.brightness = quality.brightness
        m.pointee.contrast = quality.contrast
        m.pointee.median_text_height = quality.medianTextHeight
        (m.pointee.n_hints, m.pointee.hints) = values(quality.hints) {
            Legible__V1__QualityHint(rawValue: wireEnumValue($0.rawValue))
        }
        return m
    }

    func appliedOrientation(_ applied: AppliedOrientation) -> UnsafeMutablePointer<Legible__V1__AppliedOrientation> {
        let m = message(legible__v1__applied_orientation__init)
        m.pointee.orientation = Legible__V1__Orientation(rawValue: wireEnumValue(applied.orientation.rawValue))
        m.pointee.source = Legible__V1__OrientationSource(rawValue: wireEnumValue(applied.source.rawValue))
        m.pointee.osd_rotation_degrees = UInt32(clamping: applied.osdRotationDegrees)
        m.pointee.osd_confidence = applied.osdConfidence
        return m
    }

    func timing(_ timing: Timing) -> UnsafeMutablePointer<Legible__V1__Timing> {
        let m = message(legible__v1__timing__init)
        m.pointee.client_timestamp_us = timing.clientTimestampMicros
        m.pointee.queue_us = timing.queueMicros
        m.pointee.decode_us = timing.decodeMicros
        m.pointee.recognize_us = timing.recognizeMicros
        m.pointee.total_us = timing.totalMicros
        return m
    }

    func changes(_ changes: Changes) -> UnsafeMutablePointer<Legible__V1__Changes> {
        let m = message(legible__v1__changes__init)
        (m.pointee.n_added, m.pointee.added) = values(changes.added) { $0 }
        (m.pointee.n_changed, m.pointee.changed) = values(changes.changed) { $0 }
        (m.pointee.n_removed, m.pointee.removed) = values(changes.removed) { $0 }
        return m
    }

    func error(_ error: WireError) -> UnsafeMutablePointer<Legible__V1__Error> {
        let m = message(legible__v1__error__init)
        m.pointee.code = error.code
        set(&m.pointee.message, error.message)
        m.pointee.frame_id = error.frameID
        m.pointee.fatal = protobufBool(error.fatal)
        return m
    }

    func pong(_ nonce: UInt64) -> UnsafeMutablePointer<Legible__V1__Pong> {
        let m = message(legible__v1__pong__init)
        m.pointee.nonce = nonce
        return m
    }

    func summary(_ summary: SessionSummary) -> UnsafeMutablePointer<Legible__V1__SessionSummary> {
        let m = message(legible__v1__session_summary__init)
        m.pointee.frames_received = summary.framesReceived
        m.pointee.frames_recognized = summary.framesRecognized
        m.pointee.frames_dropped = summary.framesDropped
        m.pointee.frames_skipped = summary.framesSkipped
        m.pointee.frames_failed = summary.framesFailed
        (m.pointee.n_captures, m.pointee.captures) = messages(summary.captures, capture)
        return m
    }

    // MARK: The result tree

    func text(_ text: RecognizedText) -> UnsafeMutablePointer<Legible__V1__Text> {
        let m = message(legible__v1__text__init)
        set(&m.pointee.text, text.text)
        (m.pointee.n_blocks, m.pointee.blocks) = messages(text.blocks, block)
        m.pointee.image_width = UInt32(clamping: text.imageWidth)
        m.pointee.image_height = UInt32(clamping: text.imageHeight)
        (m.pointee.n_entities, m.pointee.entities) = messages(text.entities) { entity in
            let e = message(legible__v1__entity__init)
            e.pointee.kind = Legible__V1__EntityKind(rawValue: wireEnumValue(entity.kind.rawValue))
            set(&e.pointee.text, entity.text)
            (e.pointee.n_frames, e.pointee.frames) = messages(entity.frames, rect)
            return e
        }
        return m
    }

    func block(_ block: TextBlock) -> UnsafeMutablePointer<Legible__V1__TextBlock> {
        let m = message(legible__v1__text_block__init)
        set(&m.pointee.text, block.text)
        m.pointee.frame = rect(block.frame)
        (m.pointee.n_corner_points, m.pointee.corner_points) = cornerPoints(block.cornerPoints)
        m.pointee.confidence = block.confidence
        (m.pointee.n_recognized_languages, m.pointee.recognized_languages) = languages(block.recognizedLanguages)
        (m.pointee.n_lines, m.pointee.lines) = messages(block.lines, line)
        (m.pointee.n_paragraphs, m.pointee.paragraphs) = messages(block.paragraphs, paragraph)
        return m
    }

    func line(_ line: TextLine) -> UnsafeMutablePointer<Legible__V1__TextLine> {
        let m = message(legible__v1__text_line__init)
        set(&m.pointee.text, line.text)
        m.pointee.frame = rect(line.frame)
        (m.pointee.n_corner_points, m.pointee.corner_points) = cornerPoints(line.cornerPoints)
        m.pointee.confidence = line.confidence
        (m.pointee.n_recognized_languages, m.pointee.recognized_languages) = languages(line.recognizedLanguages)
        (m.pointee.n_elements, m.pointee.elements) = messages(line.elements, element)
        m.pointee.track_id = line.trackID
        m.pointee.stable_frames = line.stableFrames
        m.pointee.script = Legible__V1__Script(rawValue: wireEnumValue(line.script?.rawValue ?? 0))
        if let model = line.model { set(&m.pointee.model, model) }
        return m
    }

    func paragraph(_ paragraph: TextParagraph) -> UnsafeMutablePointer<Legible__V1__TextParagraph> {
        let m = message(legible__v1__text_paragraph__init)
        set(&m.pointee.text, paragraph.text)
        m.pointee.frame = rect(paragraph.frame)
        (m.pointee.n_corner_points, m.pointee.corner_points) = cornerPoints(paragraph.cornerPoints)
        m.pointee.confidence = paragraph.confidence
        (m.pointee.n_recognized_languages, m.pointee.recognized_languages) = languages(paragraph.recognizedLanguages)
        (m.pointee.n_words, m.pointee.words) = messages(paragraph.words, element)
        m.pointee.recognized_break = paragraph.recognizedBreak.map(recognizedBreak)
        return m
    }

    func element(_ element: TextElement) -> UnsafeMutablePointer<Legible__V1__TextElement> {
        let m = message(legible__v1__text_element__init)
        set(&m.pointee.text, element.text)
        m.pointee.frame = rect(element.frame)
        (m.pointee.n_corner_points, m.pointee.corner_points) = cornerPoints(element.cornerPoints)
        m.pointee.confidence = element.confidence
        (m.pointee.n_recognized_languages, m.pointee.recognized_languages) = languages(element.recognizedLanguages)
        (m.pointee.n_symbols, m.pointee.symbols) = messages(element.symbols, symbol)
        (m.pointee.n_candidates, m.pointee.candidates) = messages(element.candidates, candidate)
        m.pointee.recognized_break = element.recognizedBreak.map(recognizedBreak)
        return m
    }

    func symbol(_ symbol: TextSymbol) -> UnsafeMutablePointer<Legible__V1__TextSymbol> {
        let m = message(legible__v1__text_symbol__init)
        set(&m.pointee.text, symbol.text)
        m.pointee.frame = rect(symbol.frame)
        (m.pointee.n_corner_points, m.pointee.corner_points) = cornerPoints(symbol.cornerPoints)
        m.pointee.confidence = symbol.confidence
        (m.pointee.n_candidates, m.pointee.candidates) = messages(symbol.candidates, candidate)
        m.pointee.recognized_break = symbol.recognizedBreak.map(recognizedBreak)
        return m
    }

    func candidate(_ candidate: Candidate) -> UnsafeMutablePointer<Legible__V1__Candidate> {
        let m = message(legible__v1__candidate__init)
        set(&m.pointee.text, candidate.text)
        m.pointee.confidence = candidate.confidence
        return m
    }

    func recognizedBreak(_ value: RecognizedBreak) -> UnsafeMutablePointer<Legible__V1__RecognizedBreak> {
        let m = message(legible__v1__recognized_break__init)
        m.pointee.type = Legible__V1__BreakType(rawValue: wireEnumValue(value.kind.rawValue))
        m.pointee.is_prefix = protobufBool(value.isPrefix)
        return m
    }

    func languages(
        _ codes: [String]
    ) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<Legible__V1__RecognizedLanguage>?>?) {
        messages(codes) { code in
            let m = message(legible__v1__recognized_language__init)
            set(&m.pointee.language_code, code)
            return m
        }
    }

    // MARK: Geometry

    func rect(_ rect: Rect) -> UnsafeMutablePointer<Legible__V1__Rect> {
        let m = message(legible__v1__rect__init)
        m.pointee.x = rect.x
        m.pointee.y = rect.y
        m.pointee.width = rect.width
        m.pointee.height = rect.height
        return m
    }

    /// `corner_points`: clockwise from the text's top-left, the rotated box of a detected line
    /// (or of a word read from one) or else the frame's corners. Decoding keeps them only when
    /// they differ from the frame's.
    func cornerPoints(_ corners: [Point]) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<Legible__V1__Point>?>?) {
        // One block for the Points and one for the pointers to them: corners are written for
        // every node of the tree, so they are the most numerous messages we build.
        let points = array(of: Legible__V1__Point.self, count: corners.count)
        let list = array(of: UnsafeMutablePointer<Legible__V1__Point>?.self, count: corners.count)
        for (index, corner) in corners.enumerated() {
            let point = points + index
            legible__v1__point__init(point)
            point.pointee.x = corner.x
            point.pointee.y = corner.y
            (list + index).initialize(to: point)
        }
        return (corners.count, list)
    }
}

/// A Swift-side enum number as protobuf-c stores it: a C `int`, imported as its `UInt32` bit
/// pattern. A number outside Int32 cannot have come off the wire; it is truncated.
func wireEnumValue(_ value: Int) -> UInt32 {
    UInt32(bitPattern: Int32(truncatingIfNeeded: value))
}

func protobufBool(_ value: Bool) -> protobuf_c_boolean {
    value ? 1 : 0
}
