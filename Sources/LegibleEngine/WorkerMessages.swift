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
///  u32 value bytes │ u32 attachments (+ 2³¹: shared) │ u32 bytes of each attachment … │ value │ attachment bytes …
/// ```
///
/// little-endian. The value is the `Codable` request or reply in `BinaryCoding`'s form; large
/// byte arrays (a frame's encoded image, a handed-off frame's gray pixels) go as attachments
/// (`ByteAttachments`), so that the value stays small. A request's attachments are written to
/// the worker's `SharedFrameMemory` instead of the socket when they fit there (the count's top
/// bit says so; they then lie one after another from the region's start).
struct WorkerMessageHeader: Equatable {
    var valueSize: Int
    var attachmentSizes: [UInt32]
    /// The attachments are in the worker's shared memory, not on the socket after the value.
    var attachmentsShared: Bool

    /// The count's top bit: the attachments are shared.
    static let sharedBit: UInt32 = 1 << 31
    /// A message with more attachments than this is refused.
    static let maximumAttachments = 64

    /// The bytes that follow the header on the socket.
    var bodySize: Int { valueSize + (attachmentsShared ? 0 : attachmentSizes.reduce(0) { $0 + Int($1) }) }

    func append(to message: inout [UInt8]) {
        UInt32(valueSize).append(to: &message)
        (UInt32(attachmentSizes.count) | (attachmentsShared ? Self.sharedBit : 0)).append(to: &message)
        for size in attachmentSizes { size.append(to: &message) }
    }

    /// Reads a header with `read`, which fills its buffer from the message or throws.
    static func read<Failure: Error>(_ read: (inout [UInt8]) throws(Failure) -> Void) throws(Failure) -> Self? {
        var first = [UInt8](repeating: 0, count: 8)
        try read(&first)
        let count = UInt32.read(first[4..<8])!
        let attachmentCount = Int(count & ~sharedBit)
        guard attachmentCount <= maximumAttachments else { return nil }
        var sizes = [UInt8](repeating: 0, count: 4 * attachmentCount)
        try read(&sizes)
        return WorkerMessageHeader(
            valueSize: Int(UInt32.read(first[0..<4])!),
            attachmentSizes: (0..<attachmentCount).map { UInt32.read(sizes[4 * $0..<4 * $0 + 4])! },
            attachmentsShared: count & sharedBit != 0)
    }
}

enum WorkerCodec {
    /// A message larger than this is refused (a frame is at most --max-message-bytes, and its
    /// gray image at most --max-pixels bytes).
    static let maximumBytes = 1 << 30

    /// The message's bytes; with `shared`, its attachments go there when they fit.
    static func encode<Value: Encodable>(
        _ value: Value, attachments: ByteAttachments = ByteAttachments(), shared: SharedFrameMemory? = nil
    ) throws -> [UInt8] {
        let encoded = try BinaryMessageEncoder(userInfo: [ByteAttachments.key: attachments]).encode(value)
        let parts = attachments.parts
        let header = WorkerMessageHeader(
            valueSize: encoded.count, attachmentSizes: parts.map { UInt32($0.count) },
            attachmentsShared: !parts.isEmpty && shared?.write(parts) == true)
        var message = [UInt8]()
        message.reserveCapacity(8 + 4 * parts.count + header.bodySize)
        header.append(to: &message)
        message.append(contentsOf: encoded)
        if !header.attachmentsShared { for part in parts { message.append(contentsOf: part) } }
        return message
    }

    static func decode<Value: Decodable>(
        _ type: Value.Type, header: WorkerMessageHeader, body: [UInt8], shared: SharedFrameMemory? = nil
    ) throws -> Value {
        try decodeKeepingAttachments(type, header: header, body: body, shared: shared).value
    }

    /// The value and the message's attachments, each copied once out of `body` or `shared`.
    static func decodeKeepingAttachments<Value: Decodable>(
        _ type: Value.Type, header: WorkerMessageHeader, body: [UInt8], shared: SharedFrameMemory? = nil
    ) throws -> (value: Value, attachments: [[UInt8]]) {
        guard header.bodySize == body.count else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a message of the wrong size"))
        }
        var attachments = [[UInt8]]()
        if header.attachmentsShared {
            guard let parts = shared?.read(sizes: header.attachmentSizes) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "shared attachments beyond the shared frame memory"))
            }
            attachments = parts
        } else {
            var offset = header.valueSize
            for size in header.attachmentSizes {
                attachments.append(Array(body[offset..<offset + Int(size)]))
                offset += Int(size)
            }
        }
        let decoder = BinaryMessageDecoder(userInfo: [ByteAttachments.key: ByteAttachments(attachments)])
        return (try decoder.decode(type, from: body[0..<header.valueSize]), attachments)
    }
}

extension WorkerRequest {
    /// The request with its frame's bytes as an attachment (in `shared` when they fit there).
    func encoded(shared: SharedFrameMemory? = nil) throws -> [UInt8] {
        guard case .process(var frame, let settings, let context) = self else {
            return try WorkerCodec.encode(self, shared: shared)
        }
        let attachments = ByteAttachments()
        _ = attachments.append(frame.data)
        frame.data = []
        return try WorkerCodec.encode(
            WorkerRequest.process(frame, settings, context), attachments: attachments, shared: shared)
    }

    /// A decoded request with its frame's bytes back from the attachment.
    static func decode(header: WorkerMessageHeader, body: [UInt8], shared: SharedFrameMemory? = nil) throws
        -> WorkerRequest
    {
        let (request, attachments) = try WorkerCodec.decodeKeepingAttachments(
            WorkerRequest.self, header: header, body: body, shared: shared)
        guard case .process(var frame, let settings, let context) = request, let data = attachments.first else {
            return request
        }
        frame.data = data
        return .process(frame, settings, context)
    }
}
