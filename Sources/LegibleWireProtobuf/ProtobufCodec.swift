internal import CProtobufC
internal import Glibc
public import LegibleCore
internal import LegibleProtoC
public import LegibleWire

/// Converts Legible's Swift messages to and from protobuf bytes (`legible.v1`), through the
/// protobuf-c code generated from `Protos/legible/v1/legible.proto`.
///
/// This is the one place where Swift values meet the generated C structs; no C type leaves
/// this module. The bytes are made and read by protobuf-c (`*__pack`, `*__unpack`), never by
/// hand: this codec only moves fields between the two representations.
///
/// The server decodes `ClientMessage`s and encodes `ServerMessage`s; the Swift client does
/// the reverse. The bytes are one message without framing (see `MessageFraming`).
public enum ProtobufCodec {
    /// The protobuf bytes of `message` (a `legible.v1.ServerMessage`).
    public static func encode(_ message: ServerMessage) -> [UInt8] {
        EncodeArena.using { arena in
            let m = arena.message(legible__v1__server_message__init)
            switch message {
            case .started(let started):
                m.pointee.message_case = LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_STARTED
                m.pointee.started = arena.sessionStarted(started)
            case .result(let result):
                m.pointee.message_case = LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_RESULT
                m.pointee.result = arena.frameResult(result)
            case .error(let error):
                m.pointee.message_case = LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_ERROR
                m.pointee.error = arena.error(error)
            case .pong(let nonce):
                m.pointee.message_case = LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_PONG
                m.pointee.pong = arena.pong(nonce)
            case .summary(let summary):
                m.pointee.message_case = LEGIBLE__V1__SERVER_MESSAGE__MESSAGE_SUMMARY
                m.pointee.summary = arena.summary(summary)
            }
            return pack(m, legible__v1__server_message__get_packed_size, legible__v1__server_message__pack)
        }
    }

    /// The protobuf bytes of `message` (a `legible.v1.ClientMessage`).
    public static func encode(_ message: ClientMessage) -> [UInt8] {
        EncodeArena.using { arena in
            let m = arena.message(legible__v1__client_message__init)
            switch message {
            case .start(let start):
                m.pointee.message_case = LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_START
                m.pointee.start = arena.startSession(start)
            case .frame(let frame):
                // The image is packed straight from the array's storage, so the pack must
                // happen inside this scope.
                return frame.data.withUnsafeBufferPointer { data in
                    m.pointee.message_case = LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_FRAME
                    m.pointee.frame = arena.frame(frame, data: data)
                    return pack(m, legible__v1__client_message__get_packed_size, legible__v1__client_message__pack)
                }
            case .update(let update):
                m.pointee.message_case = LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_UPDATE
                m.pointee.update = arena.updateSession(update)
            case .ping(let nonce):
                m.pointee.message_case = LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_PING
                m.pointee.ping = arena.ping(nonce)
            case .end:
                m.pointee.message_case = LEGIBLE__V1__CLIENT_MESSAGE__MESSAGE_END
                m.pointee.end = arena.endSession()
            }
            return pack(m, legible__v1__client_message__get_packed_size, legible__v1__client_message__pack)
        }
    }

    /// Reads one `legible.v1.ClientMessage`.
    ///
    /// - Throws: `invalidArgument` when the bytes are not a ClientMessage, when no member of
    ///   its `message` oneof is set (empty bytes included), or when a field holds a value the
    ///   model cannot represent (an unknown `mode` or `level`).
    public static func decodeClientMessage(_ bytes: [UInt8]) throws(LegibleError) -> ClientMessage {
        let message = try unpacked(
            bytes, legible__v1__client_message__unpack, legible__v1__client_message__free_unpacked,
            notA: "legible.v1.ClientMessage", fromPeer: true
        ) { (m) throws(LegibleError) in try Decode.clientMessage(m) }
        guard case .start(var start) = message, !start.authToken.isEmpty else { return message }
        start.authToken = try exactAuthToken(bytes)
        return .start(start)
    }

    /// StartSession's `auth_token` with every byte it holds: protobuf-c's `string` is a
    /// NUL-terminated char*, cut at a NUL the token holds ("TOKEN\0junk" would read as "TOKEN"),
    /// so the token is read again through a view of the message that has it as `bytes`
    /// (Protos/internal/legible_views.proto).
    private static func exactAuthToken(_ bytes: [UInt8]) throws(LegibleError) -> String {
        try unpacked(
            bytes, legible__internal__client_message_start_view__unpack,
            legible__internal__client_message_start_view__free_unpacked, notA: "legible.v1.ClientMessage",
            fromPeer: true
        ) { (view) throws(LegibleError) -> String in
            guard let token = view.start?.pointee.auth_token, token.len > 0, let data = token.data else { return "" }
            return String(decoding: UnsafeBufferPointer(start: data, count: token.len), as: UTF8.self)
        }
    }

    /// Reads one `legible.v1.ServerMessage`.
    ///
    /// - Throws: `invalidArgument` when the bytes are not a ServerMessage, when no member of
    ///   its `message` oneof is set, or when a result's status is not one this build knows.
    public static func decodeServerMessage(_ bytes: [UInt8]) throws(LegibleError) -> ServerMessage {
        try unpacked(
            bytes, legible__v1__server_message__unpack, legible__v1__server_message__free_unpacked,
            notA: "legible.v1.ServerMessage"
        ) { (m) throws(LegibleError) in try Decode.serverMessage(m) }
    }

    /// The protobuf bytes of one `legible.v1.FrameResult` (the answer of the gRPC method
    /// `Recognizer/Recognize`).
    public static func encode(_ result: FrameResult) -> [UInt8] {
        EncodeArena.using { arena in
            pack(arena.frameResult(result), legible__v1__frame_result__get_packed_size, legible__v1__frame_result__pack)
        }
    }

    /// The protobuf bytes of a `legible.v1.RecognizeRequest` (a client's one-frame call).
    public static func encodeRecognizeRequest(options: RecognitionOptions, frame: Frame) -> [UInt8] {
        EncodeArena.using { arena in
            frame.data.withUnsafeBufferPointer { data in
                let m = arena.message(legible__v1__recognize_request__init)
                m.pointee.options = arena.options(options)
                m.pointee.frame = arena.frame(frame, data: data)
                return pack(m, legible__v1__recognize_request__get_packed_size, legible__v1__recognize_request__pack)
            }
        }
    }

    /// Reads one `legible.v1.FrameResult` (the answer of `Recognizer/Recognize`).
    public static func decodeFrameResult(_ bytes: [UInt8]) throws(LegibleError) -> FrameResult {
        try unpacked(
            bytes, legible__v1__frame_result__unpack, legible__v1__frame_result__free_unpacked,
            notA: "legible.v1.FrameResult"
        ) { (m) throws(LegibleError) in try Decode.frameResult(m) }
    }

    /// Reads one `legible.v1.RecognizeRequest` (the request of `Recognizer/Recognize`).
    ///
    /// - Throws: `invalidArgument` when the bytes are not a RecognizeRequest or hold no frame.
    public static func decodeRecognizeRequest(_ bytes: [UInt8]) throws(LegibleError) -> (
        options: RecognitionOptions, frame: Frame
    ) {
        try unpacked(
            bytes, legible__v1__recognize_request__unpack, legible__v1__recognize_request__free_unpacked,
            notA: "legible.v1.RecognizeRequest", fromPeer: true
        ) { (m) throws(LegibleError) in
            guard let frame = m.frame else { throw LegibleError(.invalidArgument, "the RecognizeRequest has no frame") }
            return (try Decode.options(m.options), Decode.frame(frame.pointee))
        }
    }

    // MARK: protobuf-c calls

    /// Packs a built message into exactly `get_packed_size` bytes.
    static func pack<T>(
        _ message: UnsafeMutablePointer<T>, _ packedSize: (UnsafePointer<T>?) -> Int,
        _ pack: (UnsafePointer<T>?, UnsafeMutablePointer<UInt8>?) -> Int
    ) -> [UInt8] {
        let size = packedSize(message)
        guard size > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = pack(message, buffer.baseAddress)
            precondition(count == size, "protobuf-c packed \(count) bytes, announced \(size)")
        }
    }

    /// Unpacks `bytes`, hands the message to `body`, and always frees the unpacked tree.
    ///
    /// A peer's message (`fromPeer`) is unpacked within an `UnpackBudget`: past it protobuf-c
    /// is refused memory, fails, and the message is RESOURCE_EXHAUSTED.
    static func unpacked<T, R>(
        _ bytes: [UInt8],
        _ unpack: (UnsafeMutablePointer<ProtobufCAllocator>?, Int, UnsafePointer<UInt8>?) -> UnsafeMutablePointer<T>?,
        _ free: (UnsafeMutablePointer<T>?, UnsafeMutablePointer<ProtobufCAllocator>?) -> Void,
        notA name: String, fromPeer: Bool = false,
        _ body: (T) throws(LegibleError) -> R
    ) throws(LegibleError) -> R {
        // A nil allocator is protobuf-c's default (malloc/free); free_unpacked takes the same one.
        func unpackAndRead(_ allocator: UnsafeMutablePointer<ProtobufCAllocator>?, _ budget: UnpackBudget?)
            throws(LegibleError) -> R
        {
            let message = bytes.withUnsafeBufferPointer { unpack(allocator, $0.count, $0.baseAddress) }
            guard let message else {
                if budget?.exceeded == true {
                    throw LegibleError(
                        .resourceExhausted,
                        "a \(name) of \(bytes.count) bytes holds more entries than one may: over "
                            + "\(UnpackBudget.maxAllocations) strings, messages and lists")
                }
                throw LegibleError(.invalidArgument, "bytes are not a \(name)")
            }
            defer { free(message, allocator) }
            return try body(message.pointee)
        }
        guard fromPeer else { return try unpackAndRead(nil, nil) }
        let budget = UnpackBudget(messageBytes: bytes.count)
        return try budget.withAllocator { (allocator) throws(LegibleError) -> R in try unpackAndRead(allocator, budget)
        }
    }
}

/// What protobuf-c may allocate to unpack one message from a peer: a message made of millions
/// of small entries (strings, submessages, unknown fields, each its own allocation) would
/// otherwise cost the server's event loop up to a second per 15 MB (5 million empty capture goals:
/// 0.7 s, `bench/probes/loop_stall.py`) where a frame of the same size costs a copy. The most entries a valid message
/// holds is about 1,100 (a StartSession's 1,000 custom words, 64 language hints and 16 capture
/// goals), the most bytes the message's size (a frame's image is copied) and protobuf-c's
/// bookkeeping of its fields; the budget is several times that.
final class UnpackBudget {
    static let maxAllocations = 4096
    private let maxBytes: Int
    private var allocations = 0
    private var bytes = 0
    /// An allocation was refused: the unpack failed for the budget, not for the bytes.
    private(set) var exceeded = false

    init(messageBytes: Int) { maxBytes = 2 * messageBytes + (1 << 20) }

    /// Runs `body` with protobuf-c's allocator for this budget (valid only within it).
    func withAllocator<R>(_ body: (UnsafeMutablePointer<ProtobufCAllocator>) throws(LegibleError) -> R)
        throws(LegibleError) -> R
    {
        var allocator = ProtobufCAllocator(
            alloc: budgetedAlloc, free: budgetedFree, allocator_data: Unmanaged.passUnretained(self).toOpaque())
        return try withExtendedLifetime(self) { () throws(LegibleError) -> R in try body(&allocator) }
    }

    fileprivate func allow(_ size: Int) -> Bool {
        allocations += 1
        bytes += size
        if allocations > Self.maxAllocations || bytes > maxBytes { exceeded = true }
        return !exceeded
    }
}

private let budgetedAlloc: @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = { data, size in
    guard Unmanaged<UnpackBudget>.fromOpaque(data!).takeUnretainedValue().allow(size) else { return nil }
    return malloc(size)
}

private let budgetedFree: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, pointer in
    free(pointer)
}
