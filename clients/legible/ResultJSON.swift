import Foundation
import LegibleCore
import LegibleWire

/// A JSON value whose objects keep their keys in the order given, so that the output follows
/// the proto's field order (Foundation's serializer sorts or scrambles them).
enum JSONValue {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case integer(Int64)
    case unsigned(UInt64)
    case number(Float)
    case bool(Bool)

    /// A 64-bit integer field: protobuf's JSON mapping writes `int64` and `uint64` as decimal
    /// strings (JavaScript's numbers lose integers above 2^53).
    static func int64(_ value: UInt64) -> JSONValue { .string(String(value)) }

    /// Compact JSON text on one line.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                JSONText.append(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .string(let string): JSONText.append(string, to: &out)
        case .integer(let value): out += String(value)
        case .unsigned(let value): out += String(value)
        case .number(let value): out += Self.floatText(value)
        case .bool(let value): out += value ? "true" : "false"
        }
    }

    /// A `float` field as protobuf's JSON mapping writes it: a number, or the strings "NaN",
    /// "Infinity" and "-Infinity" (JSON has no such numbers).
    ///
    /// Float's description is the shortest text that reads back as the same Float ("0.96",
    /// not 0.9599999785…). Only at ±`greatestFiniteMagnitude` does that text ("3.4028235e+38")
    /// read back, as a double, above the largest float, which parsers refuse; there the exact
    /// value is written.
    static func floatText(_ value: Float) -> String {
        if value.isNaN { return "\"NaN\"" }
        if value.isInfinite { return value > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        let short = "\(value)"
        if let back = Double(short), abs(back) > Double(Float.greatestFiniteMagnitude) { return "\(Double(value))" }
        return short
    }
}

/// `FrameResult` as protobuf's JSON mapping writes it with `preserving_proto_field_name`
/// (what `json_format.MessageToJson(message, preserving_proto_field_name=True,
/// always_print_fields_with_no_presence=True)` prints, and `json_format.Parse` reads back into
/// the same message): the proto's field names in the proto's order; enums by their value
/// names; `int64`/`uint64` as decimal strings, `int32`/`uint32` as numbers; `float` as the
/// shortest number that reads back (or "NaN", "Infinity", "-Infinity"); repeated fields as
/// arrays, always printed; scalars printed even at their defaults; message fields only when
/// set. `corner_points` come from each frame, as the server makes them.
enum ResultJSON {
    static func frameResult(_ result: FrameResult) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("frame_id", .int64(result.frameID)),
            ("status", .string(statusName(result.status))),
        ]
        if let text = result.text { members.append(("text", self.text(text))) }
        if let timing = result.timing {
            members.append(
                (
                    "timing",
                    .object([
                        ("client_timestamp_us", .int64(timing.clientTimestampMicros)),
                        ("queue_us", .unsigned(UInt64(timing.queueMicros))),
                        ("decode_us", .unsigned(UInt64(timing.decodeMicros))),
                        ("recognize_us", .unsigned(UInt64(timing.recognizeMicros))),
                        ("total_us", .unsigned(UInt64(timing.totalMicros))),
                    ])
                ))
        }
        if let changes = result.changes {
            members.append(
                (
                    "changes",
                    .object([
                        ("added", .array(changes.added.map(JSONValue.int64))),
                        ("changed", .array(changes.changed.map(JSONValue.int64))),
                        ("removed", .array(changes.removed.map(JSONValue.int64))),
                    ])
                ))
        }
        if let quality = result.quality {
            members.append(
                (
                    "quality",
                    .object([
                        ("sharpness", .number(quality.sharpness)),
                        ("brightness", .number(quality.brightness)),
                        ("hints", .array(quality.hints.map { .string(hintName($0)) })),
                        ("contrast", .number(quality.contrast)),
                        ("median_text_height", .number(quality.medianTextHeight)),
                    ])
                ))
        }
        if let error = result.error { members.append(("error", self.error(error))) }
        if let orientation = result.orientation {
            members.append(
                (
                    "orientation",
                    .object([
                        ("orientation", .string(orientationName(orientation.orientation))),
                        ("source", .string(sourceName(orientation.source))),
                        // uint32: a number. The model keeps it as an Int; the wire has no negative.
                        (
                            "osd_rotation_degrees",
                            .unsigned(UInt64(UInt32(truncatingIfNeeded: orientation.osdRotationDegrees)))
                        ),
                        ("osd_confidence", .number(orientation.osdConfidence)),
                    ])
                ))
        }
        members += [
            ("skip_reason", .string(result.skipReason.map(skipReasonName) ?? "SKIP_REASON_UNSPECIFIED")),
            ("stable", .bool(result.stable)),
            ("scene_difference", .number(result.sceneDifference)),
            ("motion", .number(result.motion)),
            (
                "captures",
                .array(
                    result.captures.map { capture in
                        .object([
                            ("goal", .string(capture.goal)), ("value", .string(capture.value)),
                            ("frames", .array(capture.frames.map(rect))), ("confidence", .number(capture.confidence)),
                            ("confirmations", .unsigned(UInt64(capture.confirmations))),
                            ("captured", .bool(capture.captured)),
                        ])
                    })
            ),
        ]
        return .object(members)
    }

    static func error(_ error: WireError) -> JSONValue {
        .object([
            ("code", .integer(Int64(error.code))), ("message", .string(error.message)),
            ("frame_id", .int64(error.frameID)), ("fatal", .bool(error.fatal)),
        ])
    }

    static func text(_ text: RecognizedText) -> JSONValue {
        .object([
            ("text", .string(text.text)),
            ("blocks", .array(text.blocks.map(block))),
            ("image_width", .unsigned(UInt64(UInt32(truncatingIfNeeded: text.imageWidth)))),
            ("image_height", .unsigned(UInt64(UInt32(truncatingIfNeeded: text.imageHeight)))),
            (
                "entities",
                .array(
                    text.entities.map { entity in
                        .object([
                            ("kind", .string(entityKindName(entity.kind))),
                            ("text", .string(entity.text)),
                            ("frames", .array(entity.frames.map(rect))),
                        ])
                    })
            ),
        ])
    }

    /// The members every level of the tree shares, in the proto's order (`TextSymbol` has no
    /// `recognized_languages`: nil leaves it out).
    private static func common(
        _ text: String, _ frame: Rect, _ corners: [Point], _ confidence: Float, _ languages: [String]?
    ) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("text", .string(text)), ("frame", rect(frame)),
            (
                "corner_points",
                .array(
                    corners.map { .object([("x", .integer(Int64($0.x))), ("y", .integer(Int64($0.y)))]) })
            ),
            ("confidence", .number(confidence)),
        ]
        if let languages {
            members.append(
                ("recognized_languages", .array(languages.map { .object([("language_code", .string($0))]) })))
        }
        return members
    }

    static func block(_ block: TextBlock) -> JSONValue {
        .object(
            common(block.text, block.frame, block.cornerPoints, block.confidence, block.recognizedLanguages) + [
                ("lines", .array(block.lines.map(line))),
                ("paragraphs", .array(block.paragraphs.map(paragraph))),
            ])
    }

    static func line(_ line: TextLine) -> JSONValue {
        var members =
            common(line.text, line.frame, line.cornerPoints, line.confidence, line.recognizedLanguages) + [
                ("elements", .array(line.elements.map(element))),
                ("track_id", .int64(line.trackID)),
                ("stable_frames", .unsigned(UInt64(line.stableFrames))),
            ]
        // Proto3 JSON leaves defaults out: a line read by a recognizer of several models.
        if let script = line.script { members.append(("script", .string(scriptName(script)))) }
        if let model = line.model { members.append(("model", .string(model))) }
        return .object(members)
    }

    static func scriptName(_ script: Script) -> String {
        switch script {
        case .latin: "SCRIPT_LATIN"
        case .chinese: "SCRIPT_CHINESE"
        case .devanagari: "SCRIPT_DEVANAGARI"
        case .japanese: "SCRIPT_JAPANESE"
        case .korean: "SCRIPT_KOREAN"
        }
    }

    static func paragraph(_ paragraph: TextParagraph) -> JSONValue {
        var members =
            common(
                paragraph.text, paragraph.frame, paragraph.cornerPoints, paragraph.confidence,
                paragraph.recognizedLanguages) + [
                ("words", .array(paragraph.words.map(element)))
            ]
        if let brk = paragraph.recognizedBreak { members.append(("recognized_break", recognizedBreak(brk))) }
        return .object(members)
    }

    static func element(_ element: TextElement) -> JSONValue {
        var members =
            common(element.text, element.frame, element.cornerPoints, element.confidence, element.recognizedLanguages)
            + [
                ("symbols", .array(element.symbols.map(symbol))),
                ("candidates", .array(element.candidates.map(candidate))),
            ]
        if let brk = element.recognizedBreak { members.append(("recognized_break", recognizedBreak(brk))) }
        return .object(members)
    }

    static func symbol(_ symbol: TextSymbol) -> JSONValue {
        var members =
            common(symbol.text, symbol.frame, symbol.cornerPoints, symbol.confidence, nil) + [
                ("candidates", .array(symbol.candidates.map(candidate)))
            ]
        if let brk = symbol.recognizedBreak { members.append(("recognized_break", recognizedBreak(brk))) }
        return .object(members)
    }

    static func candidate(_ candidate: Candidate) -> JSONValue {
        .object([("text", .string(candidate.text)), ("confidence", .number(candidate.confidence))])
    }

    static func recognizedBreak(_ brk: RecognizedBreak) -> JSONValue {
        .object([("type", .string(breakTypeName(brk.kind))), ("is_prefix", .bool(brk.isPrefix))])
    }

    static func rect(_ r: Rect) -> JSONValue {
        .object([
            ("x", .integer(Int64(r.x))), ("y", .integer(Int64(r.y))), ("width", .integer(Int64(r.width))),
            ("height", .integer(Int64(r.height))),
        ])
    }

    // MARK: Enum value names, as in legible.proto

    static func statusName(_ status: FrameStatus) -> String {
        switch status {
        case .recognized: "FRAME_STATUS_RECOGNIZED"
        case .dropped: "FRAME_STATUS_DROPPED"
        case .skipped: "FRAME_STATUS_SKIPPED"
        case .failed: "FRAME_STATUS_FAILED"
        }
    }

    static func skipReasonName(_ reason: SkipReason) -> String {
        switch reason {
        case .unchanged: "SKIP_REASON_UNCHANGED"
        case .moving: "SKIP_REASON_MOVING"
        }
    }

    static func hintName(_ hint: QualityHint) -> String {
        switch hint {
        case .textTooSmall: "QUALITY_HINT_TEXT_TOO_SMALL"
        case .blurry: "QUALITY_HINT_BLURRY"
        case .tooDark: "QUALITY_HINT_TOO_DARK"
        case .lowContrast: "QUALITY_HINT_LOW_CONTRAST"
        }
    }

    static func orientationName(_ orientation: Orientation) -> String {
        switch orientation {
        case .up: "ORIENTATION_UP"
        case .upMirrored: "ORIENTATION_UP_MIRRORED"
        case .down: "ORIENTATION_DOWN"
        case .downMirrored: "ORIENTATION_DOWN_MIRRORED"
        case .leftMirrored: "ORIENTATION_LEFT_MIRRORED"
        case .right: "ORIENTATION_RIGHT"
        case .rightMirrored: "ORIENTATION_RIGHT_MIRRORED"
        case .left: "ORIENTATION_LEFT"
        }
    }

    static func sourceName(_ source: OrientationSource) -> String {
        switch source {
        case .client: "ORIENTATION_SOURCE_CLIENT"
        case .exif: "ORIENTATION_SOURCE_EXIF"
        case .default: "ORIENTATION_SOURCE_DEFAULT"
        case .osd: "ORIENTATION_SOURCE_OSD"
        }
    }

    static func entityKindName(_ kind: EntityKind) -> String {
        switch kind {
        case .phoneNumber: "ENTITY_KIND_PHONE_NUMBER"
        case .emailAddress: "ENTITY_KIND_EMAIL_ADDRESS"
        case .url: "ENTITY_KIND_URL"
        case .date: "ENTITY_KIND_DATE"
        case .paymentCard: "ENTITY_KIND_PAYMENT_CARD"
        }
    }

    static func breakTypeName(_ kind: RecognizedBreak.Kind) -> String {
        switch kind {
        case .unknown: "BREAK_TYPE_UNKNOWN"
        case .space: "BREAK_TYPE_SPACE"
        case .sureSpace: "BREAK_TYPE_SURE_SPACE"
        case .eolSureSpace: "BREAK_TYPE_EOL_SURE_SPACE"
        case .hyphen: "BREAK_TYPE_HYPHEN"
        case .lineBreak: "BREAK_TYPE_LINE_BREAK"
        }
    }
}
