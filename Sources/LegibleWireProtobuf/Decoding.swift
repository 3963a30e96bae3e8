internal import CProtobufC
internal import LegibleCore
internal import LegibleProtoC
internal import LegibleWire

/// protobuf-c structs (as `*__unpack` returned them) → the Swift model.
///
/// Everything is copied out: the caller frees the unpacked tree as soon as this returns. Only
/// the checks the model cannot express throw; an enum number this build does not know stays
/// visible where the model has room for it (`WireEnum`, `Script` lists of options), so the
/// session's validation can answer it.
enum Decode {
    // MARK: Client → server

    static func clientMessage(_ m: Legible__V1__ClientMessage) throws(LegibleError) -> ClientMessage {
        switch m.message_case {
        case LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_START:
            return .start(try startSession(present(m.start)))
        case LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_FRAME:
            return .frame(frame(try present(m.frame)))
        case LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_UPDATE:
            return .update(UpdateSession(options: try options(present(m.update).options)))
        case LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_PING:
            return .ping(nonce: try present(m.ping).nonce)
        case LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_END:
            return .end
        default:
            // NOT_SET: empty bytes, or only fields this build does not know.
            throw LegibleError(.invalidArgument, "empty ClientMessage")
        }
    }

    static func startSession(_ m: Legible__V1__StartSession) throws(LegibleError) -> StartSession {
        StartSession(
            protocolVersion: m.protocol_version, clientName: string(m.client_name), authToken: string(m.auth_token),
            options: try options(m.options))
    }

    /// An absent options message is the default options.
    static func options(_ pointer: UnsafeMutablePointer<Legible__V1__RecognitionOptions>?) throws(LegibleError)
        -> RecognitionOptions
    {
        guard let m = pointer?.pointee else { return RecognitionOptions() }
        let modeValue = enumValue(m.mode.rawValue)
        let levelValue = enumValue(m.level.rawValue)
        // The model keeps mode and level as known values (nil = unspecified), so an unknown
        // number cannot travel further: reject it here rather than silently use a default.
        var mode: RecognitionMode?
        if modeValue != 0 {
            guard let known = RecognitionMode(rawValue: modeValue) else {
                throw LegibleError(.invalidArgument, "unknown RecognitionOptions.mode \(modeValue)")
            }
            mode = known
        }
        var level: RecognitionLevel?
        if levelValue != 0 {
            guard let known = RecognitionLevel(rawValue: levelValue) else {
                throw LegibleError(.invalidArgument, "unknown RecognitionOptions.level \(levelValue)")
            }
            level = known
        }
        // Lists are cut to one entry over their bound (see `RecognitionOptions`): validation
        // refuses them all the same, and millions of entries are not converted one by one.
        func bounded(_ count: Int, _ bound: Int) -> Int { min(count, bound + 1) }
        return RecognitionOptions(
            scripts: values(bounded(m.n_scripts, RecognitionOptions.maxScripts), m.scripts) {
                ScriptValue(rawValue: enumValue($0.rawValue))
            },
            languageHints: strings(bounded(m.n_language_hints, RecognitionOptions.maxLanguageHints), m.language_hints),
            mode: mode, level: level,
            customWords: strings(bounded(m.n_custom_words, RecognitionOptions.maxCustomWords), m.custom_words),
            regionOfInterest: m.region_of_interest.map(rect),
            maxCandidates: m.max_candidates, includeSymbols: m.include_symbols != 0,
            autoOrientation: m.auto_orientation != 0,
            languageCorrection: try languageCorrection(enumValue(m.language_correction.rawValue)),
            minimumTextHeight: m.minimum_text_height, detectEntities: m.detect_entities != 0,
            maxFrameAgeMillis: m.max_frame_age_ms, stableAfter: m.stable_after,
            waitForSteady: m.wait_for_steady != 0, recognizeUnchanged: m.recognize_unchanged != 0,
            automaticallyDetectScript: m.automatically_detect_script != 0,
            captureGoals: try captureGoals(
                bounded(m.n_capture_goals, RecognitionOptions.maxCaptureGoals), m.capture_goals))
    }

    /// A goal must name its target: an entity kind this build knows, or a pattern.
    /// Confirmations 0 is the default; larger bounds are the server's (`CaptureFinder`).
    static func captureGoals(
        _ count: Int, _ list: UnsafeMutablePointer<UnsafeMutablePointer<Legible__V1__CaptureGoal>?>?
    ) throws(LegibleError) -> [CaptureGoal] {
        var goals: [CaptureGoal] = []
        for m in messages(count, list, { $0 }) {
            let name = string(m.name)
            let target: CaptureGoal.Target
            switch m.target_case {
            case LEGIBLE__V1__CAPTURE_GOAL__TARGET_ENTITY:
                let raw = enumValue(m.entity.rawValue)
                guard let kind = EntityKind(rawValue: raw) else {
                    throw LegibleError(.invalidArgument, "capture goal \"\(name)\": unknown entity kind \(raw)")
                }
                target = .entity(kind)
            case LEGIBLE__V1__CAPTURE_GOAL__TARGET_PATTERN:
                target = .pattern(string(m.pattern))
            default:
                throw LegibleError(.invalidArgument, "capture goal \"\(name)\" names neither an entity nor a pattern")
            }
            goals.append(
                CaptureGoal(
                    name: name, target: target,
                    confirmations: m.confirmations == 0 ? CaptureGoal.defaultConfirmations : Int(m.confirmations),
                    endWhenCaptured: m.end_when_captured != 0))
        }
        return goals
    }

    static func capture(_ m: Legible__V1__Capture) -> Capture {
        Capture(
            goal: string(m.goal), value: string(m.value),
            frames: messages(m.n_frames, m.frames) { Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
            confidence: m.confidence, confirmations: Int(m.confirmations), captured: m.captured != 0)
    }

    static func languageCorrection(_ value: Int) throws(LegibleError) -> Bool? {
        switch value {
        case 0: return nil
        case 1: return true
        case 2: return false
        default: throw LegibleError(.invalidArgument, "unknown RecognitionOptions.language_correction \(value)")
        }
    }

    static func frame(_ m: Legible__V1__Frame) -> Frame {
        let image = m.image?.pointee
        let encodingValue = image.map { enumValue($0.encoding.rawValue) } ?? 0
        let orientationValue = enumValue(m.orientation.rawValue)
        return Frame(
            frameID: m.frame_id,
            encoding: encodingValue == 0 ? nil : WireEnum(rawValue: encodingValue),
            data: image.map { bytes($0.data) } ?? [],
            width: image?.width ?? 0, height: image?.height ?? 0, stride: image?.stride ?? 0,
            orientation: orientationValue == 0 ? nil : WireEnum(rawValue: orientationValue),
            regionOfInterest: m.region_of_interest.map(rect),
            clientTimestampMicros: m.client_timestamp_us)
    }

    // MARK: Server → client

    static func serverMessage(_ m: Legible__V1__ServerMessage) throws(LegibleError) -> ServerMessage {
        switch m.message_case {
        case LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_STARTED:
            return .started(sessionStarted(try present(m.started)))
        case LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_RESULT:
            return .result(try frameResult(present(m.result)))
        case LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_ERROR:
            return .error(error(try present(m.error)))
        case LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_PONG:
            return .pong(nonce: try present(m.pong).nonce)
        case LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_SUMMARY:
            return .summary(summary(try present(m.summary)))
        default:
            throw LegibleError(.invalidArgument, "empty ServerMessage")
        }
    }

    static func sessionStarted(_ m: Legible__V1__SessionStarted) -> SessionStarted {
        let limits = m.limits?.pointee
        return SessionStarted(
            sessionID: string(m.session_id), serverVersion: string(m.server_version),
            protocolVersion: m.protocol_version,
            limits: ServerLimits(
                maxMessageBytes: limits?.max_message_bytes ?? 0,
                pendingFramesPerSession: limits?.pending_frames_per_session ?? 0, workers: limits?.workers ?? 0,
                replicasPerScript: limits?.replicas_per_script ?? 0, maxSessions: limits?.max_sessions ?? 0,
                frameDeadlineMillis: limits?.frame_deadline_ms ?? 0),
            // The model lists known scripts only: one this client does not know is one it
            // cannot name in a request anyway, so it is left out.
            availableScripts: values(m.n_available_scripts, m.available_scripts) {
                Script(rawValue: enumValue($0.rawValue))
            }.compactMap { $0 },
            engines: messages(m.n_engines, m.engines) { (e: Legible__V1__EngineInfo) -> EngineInfo? in
                guard let script = Script(rawValue: enumValue(e.script.rawValue)) else { return nil }
                return EngineInfo(script: script, model: string(e.model), replicas: e.replicas, loaded: e.loaded)
            }.compactMap { $0 })
    }

    static func frameResult(_ m: Legible__V1__FrameResult) throws(LegibleError) -> FrameResult {
        let statusValue = enumValue(m.status.rawValue)
        // The model's status is not optional and has no unknown case: an answer the client
        // cannot classify is a protocol error, not a silently invented status.
        guard let status = FrameStatus(rawValue: statusValue) else {
            throw LegibleError(.invalidArgument, "FrameResult \(m.frame_id) has unknown status \(statusValue)")
        }
        return FrameResult(
            frameID: m.frame_id, status: status, text: m.text.map { text($0.pointee) },
            timing: m.timing.map { timing($0.pointee) }, changes: m.changes.map { changes($0.pointee) },
            quality: m.quality.map { quality($0.pointee) }, error: m.error.map { error($0.pointee) },
            orientation: m.orientation.flatMap { appliedOrientation($0.pointee) },
            skipReason: SkipReason(rawValue: enumValue(m.skip_reason.rawValue)), stable: m.stable != 0,
            sceneDifference: m.scene_difference, motion: m.motion, captures: messages(m.n_captures, m.captures, capture)
        )
    }

    /// Hints this build does not know are left out: a client cannot act on advice it cannot name.
    static func quality(_ m: Legible__V1__QualityHints) -> FrameQuality {
        FrameQuality(
            sharpness: m.sharpness, brightness: m.brightness, contrast: m.contrast,
            medianTextHeight: m.median_text_height,
            hints: values(m.n_hints, m.hints) { QualityHint(rawValue: enumValue($0.rawValue)) }.compactMap { $0 })
    }

    /// nil when the orientation or its source is a value this build does not know.
    static func appliedOrientation(_ m: Legible__V1__AppliedOrientation) -> AppliedOrientation? {
        guard let orientation = Orientation(rawValue: enumValue(m.orientation.rawValue)),
            let source = OrientationSource(rawValue: enumValue(m.source.rawValue))
        else { return nil }
        return AppliedOrientation(
            orientation: orientation, source: source, osdRotationDegrees: Int(m.osd_rotation_degrees),
            osdConfidence: m.osd_confidence)
    }

    static func timing(_ m: Legible__V1__Timing) -> Timing {
        Timing(
            clientTimestampMicros: m.client_timestamp_us, queueMicros: m.queue_us, decodeMicros: m.decode_us,
            recognizeMicros: m.recognize_us, totalMicros: m.total_us)
    }

    static func changes(_ m: Legible__V1__Changes) -> Changes {
        Changes(
            added: values(m.n_added, m.added) { $0 }, changed: values(m.n_changed, m.changed) { $0 },
            removed: values(m.n_removed, m.removed) { $0 })
    }

    static func error(_ m: Legible__V1__Error) -> WireError {
        WireError(code: m.code, message: string(m.message), frameID: m.frame_id, fatal: m.fatal != 0)
    }

    static func summary(_ m: Legible__V1__SessionSummary) -> SessionSummary {
        SessionSummary(
            framesReceived: m.frames_received, framesRecognized: m.frames_recognized,
            framesDropped: m.frames_dropped, framesSkipped: m.frames_skipped, framesFailed: m.frames_failed,
            captures: messages(m.n_captures, m.captures, capture))
    }

    // MARK: The result tree

    static func text(_ m: Legible__V1__Text) -> RecognizedText {
        RecognizedText(
            text: string(m.text), blocks: messages(m.n_blocks, m.blocks, block),
            imageWidth: Int(m.image_width), imageHeight: Int(m.image_height),
            entities: messages(m.n_entities, m.entities, entity).compactMap { $0 })
    }

    /// nil for a kind this build does not know.
    static func entity(_ m: Legible__V1__Entity) -> Entity? {
        guard let kind = EntityKind(rawValue: enumValue(m.kind.rawValue)) else { return nil }
        return Entity(
            kind: kind, text: string(m.text),
            frames: messages(m.n_frames, m.frames) { Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) })
    }

    static func block(_ m: Legible__V1__TextBlock) -> TextBlock {
        TextBlock(
            text: string(m.text), frame: frame(m.frame), confidence: m.confidence,
            recognizedLanguages: languages(m.n_recognized_languages, m.recognized_languages),
            lines: messages(m.n_lines, m.lines, line), paragraphs: messages(m.n_paragraphs, m.paragraphs, paragraph))
    }

    static func line(_ m: Legible__V1__TextLine) -> TextLine {
        TextLine(
            text: string(m.text), frame: frame(m.frame), confidence: m.confidence,
            recognizedLanguages: languages(m.n_recognized_languages, m.recognized_languages),
            elements: messages(m.n_elements, m.elements, element), trackID: m.track_id,
            stableFrames: m.stable_frames, quad: quad(m.n_corner_points, m.corner_points, frame: frame(m.frame)),
            script: Script(rawValue: enumValue(m.script.rawValue)),
            model: string(m.model).isEmpty ? nil : string(m.model))
    }

    static func paragraph(_ m: Legible__V1__TextParagraph) -> TextParagraph {
        TextParagraph(
            text: string(m.text), frame: frame(m.frame), confidence: m.confidence,
            recognizedLanguages: languages(m.n_recognized_languages, m.recognized_languages),
            words: messages(m.n_words, m.words, element),
            recognizedBreak: m.recognized_break.map { recognizedBreak($0.pointee) })
    }

    static func element(_ m: Legible__V1__TextElement) -> TextElement {
        TextElement(
            text: string(m.text), frame: frame(m.frame), confidence: m.confidence,
            recognizedLanguages: languages(m.n_recognized_languages, m.recognized_languages),
            symbols: messages(m.n_symbols, m.symbols, symbol),
            candidates: messages(m.n_candidates, m.candidates, candidate),
            recognizedBreak: m.recognized_break.map { recognizedBreak($0.pointee) },
            quad: quad(m.n_corner_points, m.corner_points, frame: frame(m.frame)))
    }

    static func symbol(_ m: Legible__V1__TextSymbol) -> TextSymbol {
        TextSymbol(
            text: string(m.text), frame: frame(m.frame), confidence: m.confidence,
            candidates: messages(m.n_candidates, m.candidates, candidate),
            recognizedBreak: m.recognized_break.map { recognizedBreak($0.pointee) },
            quad: quad(m.n_corner_points, m.corner_points, frame: frame(m.frame)))
    }

    static func candidate(_ m: Legible__V1__Candidate) -> Candidate {
        Candidate(text: string(m.text), confidence: m.confidence)
    }

    static func recognizedBreak(_ m: Legible__V1__RecognizedBreak) -> RecognizedBreak {
        RecognizedBreak(
            kind: RecognizedBreak.Kind(rawValue: enumValue(m.type.rawValue)) ?? .unknown, isPrefix: m.is_prefix != 0)
    }

    static func languages(
        _ count: Int, _ list: UnsafeMutablePointer<UnsafeMutablePointer<Legible__V1__RecognizedLanguage>?>?
    ) -> [String] {
        messages(count, list) { string($0.language_code) }
    }

    // MARK: Geometry

    static func rect(_ pointer: UnsafeMutablePointer<Legible__V1__Rect>) -> Rect {
        let m = pointer.pointee
        return Rect(x: m.x, y: m.y, width: m.width, height: m.height)
    }

    /// A tree node's frame: an absent Rect is the zero rectangle (the model's frames are not
    /// optional).
    static func frame(_ pointer: UnsafeMutablePointer<Legible__V1__Rect>?) -> Rect {
        pointer.map(rect) ?? Rect(x: 0, y: 0, width: 0, height: 0)
    }

    /// `corner_points` as a rotated box, kept only when there are four and they are not simply
    /// the frame's corners (which the core types derive themselves).
    static func quad(
        _ count: Int, _ list: UnsafeMutablePointer<UnsafeMutablePointer<Legible__V1__Point>?>?, frame: Rect
    ) -> Quad? {
        let points = messages(count, list) { Point(x: $0.x, y: $0.y) }
        guard points != frame.cornerPoints else { return nil }
        return Quad(points)
    }

    // MARK: Primitives

    /// The member of a oneof whose case is set. unpack always allocates it; a NULL would be a
    /// struct not made by unpack, and is refused rather than dereferenced.
    static func present<T>(_ pointer: UnsafeMutablePointer<T>?) throws(LegibleError) -> T {
        guard let pointer else { throw LegibleError(.invalidArgument, "oneof member is missing") }
        return pointer.pointee
    }

    /// A C string from an unpacked message: protobuf-c gives `protobuf_c_empty_string` (or, in
    /// structs not built by unpack, NULL) for an absent string. Invalid UTF-8 is repaired with
    /// U+FFFD, as `String(cString:)` does.
    static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    static func strings(_ count: Int, _ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String] {
        values(count, list) { string($0) }
    }

    /// `bytes` → [UInt8], one copy.
    static func bytes(_ data: ProtobufCBinaryData) -> [UInt8] {
        guard data.len > 0, let base = data.data else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: data.len))
    }

    /// A repeated scalar field.
    static func values<C, T>(_ count: Int, _ list: UnsafeMutablePointer<C>?, _ convert: (C) -> T) -> [T] {
        guard count > 0, let list else { return [] }
        return UnsafeBufferPointer(start: list, count: count).map(convert)
    }

    /// A repeated message field. unpack never leaves a NULL element; one would be skipped.
    static func messages<C, T>(
        _ count: Int, _ list: UnsafeMutablePointer<UnsafeMutablePointer<C>?>?, _ convert: (C) -> T
    ) -> [T] {
        guard count > 0, let list else { return [] }
        var out: [T] = []
        out.reserveCapacity(count)
        for element in UnsafeBufferPointer(start: list, count: count) {
            if let element { out.append(convert(element.pointee)) }
        }
        return out
    }

    /// protobuf-c stores an enum as a C `int`; Swift imports its bit pattern as `UInt32`. A
    /// negative number on the wire stays negative here.
    static func enumValue(_ raw: UInt32) -> Int {
        Int(Int32(bitPattern: raw))
    }
}
