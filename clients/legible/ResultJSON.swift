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
        // Float's description is the shortest text that reads back as the same Float ("0.96",
        // not 0.9599999785…); JSON has no NaN or infinity.
        case .number(let value): out += value.isFinite ? "\(value)" : "0"
        case .bool(let value): out += value ? "true" : "false"
        }
    }
}

/// `FrameResult` as JSON with the proto's field names (protobuf's JSON mapping with
/// `preserving_proto_field_name`): enums by their proto names, every scalar field printed even
/// at its default, message fields only when set, 64-bit integers as numbers.
enum ResultJSON {
    static func frameResult(_ result: FrameResult) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("frame_id", .unsigned(result.frameID)),
            ("status", .string(statusName(result.status))),
        ]
        if let text = result.text { members.append(("text", self.text(text))) }
        if let timing = result.timing {
            members.append(
                (
                    "timing",
                    .object([
                        ("client_timestamp_us", .unsigned(timing.clientTimestampMicros)),
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
                        ("added", .array(changes.added.map(JSONValue.unsigned))),
                        ("changed", .array(changes.changed.map(JSONValue.unsigned))),
                        ("removed", .array(changes.removed.map(JSONValue.unsigned))),
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
                        ("osd_rotation_degrees", .integer(Int64(orientation.osdRotationDegrees))),
                        ("osd_confidence", .number(orientation.osdConfidence)),
                    ])
                ))
        }
        members += [
            ("skip_reason", .string(result.skipReason.map(skipReasonName) ?? "SKIP_REASON_UNSPECIFIED")),
            ("stable", .bool(result.stable)),
            ("scene_difference", .number(result.sceneDifference)),
            ("motion", .number(result.motion)),
        ]
        return .object(members)
    }

    static func error(_ error: WireError) -> JSONValue {
        .object([
            ("code", .integer(Int64(error.code))), ("message", .string(error.message)),
            ("frame_id", .unsigned(error.frameID)), ("fatal", .bool(error.fatal)),
        ])
    }

    static func text(_ text: RecognizedText) -> JSONValue {
        .object([
            ("text", .string(text.text)),
            ("blocks", .array(text.blocks.map(block))),
            ("image_width", .integer(Int64(text.imageWidth))),
            ("image_height", .integer(Int64(text.imageHeight))),
            (
                "entities",
                .array(
                    text.entities.map { entity in
                        .object([
                            ("kind", .string("ENTITY_KIND_" + entity.kind.description.uppercased())),
                            ("text", .string(entity.text)),
                            ("frames", .array(entity.frames.map(rect))),
                        ])
                    })
            ),
        ])
    }

    /// The members every level of the tree shares, in the proto's order.
    private static func common(_ text: String, _ frame: Rect, _ confidence: Float, _ languages: [String]?)
        -> [(String, JSONValue)]
    {
        var members: [(String, JSONValue)] = [
            ("text", .string(text)), ("frame", rect(frame)),
            (
                "corner_points",
                .array(
                    frame.cornerPoints.map { .object([("x", .integer(Int64($0.x))), ("y", .integer(Int64($0.y)))]) })
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
            common(block.text, block.frame, block.confidence, block.recognizedLanguages) + [
                ("lines", .array(block.lines.map(line))),
                ("paragraphs", .array(block.paragraphs.map(paragraph))),
            ])
    }

    static func line(_ line: TextLine) -> JSONValue {
        .object(
            common(line.text, line.frame, line.confidence, line.recognizedLanguages) + [
                ("elements", .array(line.elements.map(element))),
                ("track_id", .unsigned(line.trackID)),
                ("stable_frames", .unsigned(UInt64(line.stableFrames))),
            ])
    }

    static func paragraph(_ paragraph: TextParagraph) -> JSONValue {
        var members =
            common(paragraph.text, paragraph.frame, paragraph.confidence, paragraph.recognizedLanguages) + [
                ("words", .array(paragraph.words.map(element)))
            ]
        if let brk = paragraph.recognizedBreak { members.append(("recognized_break", recognizedBreak(brk))) }
        return .object(members)
    }

    static func element(_ element: TextElement) -> JSONValue {
        var members =
            common(element.text, element.frame, element.confidence, element.recognizedLanguages) + [
                ("symbols", .array(element.symbols.map(symbol))),
                ("candidates", .array(element.candidates.map(candidate))),
            ]
        if let brk = element.recognizedBreak { members.append(("recognized_break", recognizedBreak(brk))) }
        return .object(members)
    }

    static func symbol(_ symbol: TextSymbol) -> JSONValue {
        var members =
            common(symbol.text, symbol.frame, symbol.confidence, nil) + [
                ("candidates", .array(symbol.candidates.map(candidate)))
            ]
        if let brk = symbol.recognizedBreak { members.append(("recognized_break", recognizedBreak(brk))) }
        return .object(members)
    }

    static func candidate(_ candidate: Candidate) -> JSONValue {
        .object([("text", .string(candidate.text)), ("confidence", .number(candidate.confidence))])
    }

    static func recognizedBreak(_ brk: RecognizedBreak) -> JSONValue {
        let names: [RecognizedBreak.Kind: String] = [
            .unknown: "UNKNOWN", .space: "SPACE", .sureSpace: "SURE_SPACE", .eolSureSpace: "EOL_SURE_SPACE",
            .hyphen: "HYPHEN", .lineBreak: "LINE_BREAK",
        ]
        return .object([("type", .string("BREAK_TYPE_" + names[brk.kind]!)), ("is_prefix", .bool(brk.isPrefix))])
    }

    static func rect(_ r: Rect) -> JSONValue {
        .object([
            ("x", .integer(Int64(r.x))), ("y", .integer(Int64(r.y))), ("width", .integer(Int64(r.width))),
            ("height", .integer(Int64(r.height))),
        ])
    }

    // MARK: Enum names, as in legible.proto

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
        "ORIENTATION_" + orientation.cliName.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    static func sourceName(_ source: OrientationSource) -> String {
        switch source {
        case .client: "ORIENTATION_SOURCE_CLIENT"
        case .exif: "ORIENTATION_SOURCE_EXIF"
        case .default: "ORIENTATION_SOURCE_DEFAULT"
        case .osd: "ORIENTATION_SOURCE_OSD"
        }
    }
}
