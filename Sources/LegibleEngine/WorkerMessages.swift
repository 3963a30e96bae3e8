internal import LegibleCore
internal import LegibleSessions
internal import LegibleWire

/// What legibled asks of an engine worker process.
enum WorkerRequest: Codable {
    /// Load the engine of `key` (the worker's first message; a warm spare gets it at once).
    case load(EngineKey)
    /// Read a frame. Its bytes travel as the message's first attachment, not in the value.
    case process(Frame, SessionSettings, FrameContext)
    /// Go on reading a frame another script's engine began.
    case continueReading(LineHandOff, SessionSettings, FrameContext)
    /// Stop the recognition of this serial (cooperatively: between steps, and in Tesseract
    /// between words); legibled kills the worker if that does not come soon.
    case cancel(serial: UInt64)
}

/// What an engine worker process answers.
enum WorkerReply: Codable {
    case loaded
    case failedToLoad(LegibleError)
    case outcome(serial: UInt64, FrameOutcome)
}

/// One message between legibled and an engine worker, as it goes over their socketpair:
///
/// ```
///  u32 value bytes │ u32 attachments │ u32 bytes of each attachment … │ value │ attachment bytes …
/// ```
///
/// little-endian. The value is the `Codable` request or reply in `BinaryCoding`'s form; large
/// byte arrays (a frame's encoded image, a handed-off frame's gray pixels) go as attachments
/// (`ByteAttachments`), so that the worker can take them without copying the value around them.
enum WorkerCodec {
    /// A message larger than this is refused (a frame is at most --max-message-bytes, and its
    /// gray image at most --max-pixels bytes).
    static let maximumBytes = 1 << 30

    static func encode<Value: Encodable>(_ value: Value, attachments: ByteAttachments = ByteAttachments()) throws
        -> [UInt8]
    {
        let encoded = try BinaryMessageEncoder(userInfo: [ByteAttachments.key: attachments]).encode(value)
        var message = [UInt8]()
        message.reserveCapacity(
            8 + 4 * attachments.parts.count + encoded.count + attachments.parts.reduce(0) { $0 + $1.count })
        func append(_ number: Int) {
            withUnsafeBytes(of: UInt32(number).littleEndian) { message.append(contentsOf: $0) }
        }
        append(encoded.count)
        append(attachments.parts.count)
        for part in attachments.parts { append(part.count) }
        message.append(contentsOf: encoded)
        for part in attachments.parts { message.append(contentsOf: part) }
        return message
    }

    static func decode<Value: Decodable>(_ type: Value.Type, header: [UInt32], body: [UInt8]) throws -> Value {
        try decodeKeepingAttachments(type, header: header, body: body).value
    }

    /// The value and the message's attachments, each copied out of `body` once.
    static func decodeKeepingAttachments<Value: Decodable>(_ type: Value.Type, header: [UInt32], body: [UInt8])
        throws -> (value: Value, attachments: [[UInt8]])
    {
        let valueSize = Int(header[0])
        var attachments = [[UInt8]]()
        var offset = valueSize
        for size in header.dropFirst(2) {
            attachments.append(Array(body[offset..<offset + Int(size)]))
            offset += Int(size)
        }
        let decoder = BinaryMessageDecoder(userInfo: [ByteAttachments.key: ByteAttachments(attachments)])
        return (try decoder.decode(type, from: body[0..<valueSize]), attachments)
    }
}

extension WorkerRequest {
    /// The request with its frame's bytes as an attachment.
    func encoded() throws -> [UInt8] {
        guard case .process(var frame, let settings, let context) = self else { return try WorkerCodec.encode(self) }
        let attachments = ByteAttachments()
        _ = attachments.append(frame.data)
        frame.data = []
        return try WorkerCodec.encode(WorkerRequest.process(frame, settings, context), attachments: attachments)
    }

    /// A decoded request with its frame's bytes back from the attachment.
    static func decode(header: [UInt32], body: [UInt8]) throws -> WorkerRequest {
        let (request, attachments) = try WorkerCodec.decodeKeepingAttachments(
            WorkerRequest.self, header: header, body: body)
        guard case .process(var frame, let settings, let context) = request, let data = attachments.first else {
            return request
        }
        frame.data = data
        return .process(frame, settings, context)
    }
}
