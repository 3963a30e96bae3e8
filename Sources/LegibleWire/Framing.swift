public import LegibleCore

/// gRPC's length-prefixed message framing, used in both directions:
///
/// ```
/// +--------+--------+--------+--------+--------+==================+
/// |  flag  |   length, 4 bytes, big-endian     |  length bytes of |
/// | (0x00) |                                   |  one message     |
/// +--------+--------+--------+--------+--------+==================+
/// ```
///
/// The flag byte must be 0: bit 0 would mean "compressed", which Legible does not support,
/// and the other bits are reserved.
public enum MessageFraming {
    public static let headerSize = 5

    /// `payload` with its 5-byte header in front.
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(headerSize + payload.count)
        appendFrame(payload, to: &out)
        return out
    }

    /// Appends `payload` with its header to `buffer`.
    public static func appendFrame(_ payload: [UInt8], to buffer: inout [UInt8]) {
        precondition(payload.count <= Int(UInt32.max))
        let length = UInt32(payload.count)
        buffer.append(0)
        buffer.append(UInt8(truncatingIfNeeded: length >> 24))
        buffer.append(UInt8(truncatingIfNeeded: length >> 16))
        buffer.append(UInt8(truncatingIfNeeded: length >> 8))
        buffer.append(UInt8(truncatingIfNeeded: length))
        buffer.append(contentsOf: payload)
    }
}

/// Turns a byte stream, as it arrives in reads of any size, back into messages.
///
/// Feed it with `append(_:)` and drain it with `next()` until that returns nil. A message split
/// over many reads, several messages in one read, a byte at a time and zero-length messages
/// all decode the same. The declared length is checked against `maxMessageBytes` as soon as the
/// header is complete, before a byte of the body is buffered for it.
public struct MessageDeframer: Sendable {
    /// The largest message taken; may change between messages (a server raises it once the
    /// peer is known).
    public var maxMessageBytes: Int {
        didSet { precondition(maxMessageBytes >= 0) }
    }
    private var buffer: [UInt8] = []
    /// Start of the unconsumed bytes in `buffer`; compacted lazily so that draining many small
    /// messages out of one read is linear.
    private var readIndex = 0
    private var failed: LegibleError?

    public init(maxMessageBytes: Int) {
        precondition(maxMessageBytes >= 0)
        self.maxMessageBytes = maxMessageBytes
    }

    /// The most buffer capacity kept between messages (a 720p JPEG frame is 100–300 KB).
    public static let keptCapacity = 512 * 1024

    /// Bytes received but not yet returned as a message.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// True when the stream ended cleanly on a message boundary.
    public var isAtMessageBoundary: Bool { bufferedByteCount == 0 }

    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        if readIndex > 0 && readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, or nil when more bytes are needed.
    ///
    /// Throws `.resourceExhausted` for a length over the limit and `.unimplemented` for a
    /// non-zero flag byte; after that the stream cannot be resynchronised and every later call
    /// throws the same error.
    public mutating func next() throws(LegibleError) -> [UInt8]? {
        if let failed { throw failed }
        guard bufferedByteCount >= MessageFraming.headerSize else { return nil }
        let flag = buffer[readIndex]
        guard flag == 0 else {
            let error =
                flag & 1 == 1
                ? LegibleError(.unimplemented, "compressed messages are not supported (flag byte \(flag))")
                : LegibleError(.unimplemented, "unknown flag byte \(flag): only 0 is defined")
            failed = error
            throw error
        }
        let length =
            Int(buffer[readIndex + 1]) << 24 | Int(buffer[readIndex + 2]) << 16 | Int(buffer[readIndex + 3]) << 8
            | Int(buffer[readIndex + 4])
        guard length <= maxMessageBytes else {
            let error = LegibleError(
                .resourceExhausted, "message of \(length) bytes exceeds the limit of \(maxMessageBytes) bytes")
            failed = error
            throw error
        }
        let start = readIndex + MessageFraming.headerSize
        guard buffer.count - start >= length else { return nil }
        let message = Array(buffer[start..<start + length])
        readIndex = start + length
        if readIndex == buffer.count {
            // A stream of ordinary frames reuses its buffer; one big message must not leave a
            // connection holding its size for as long as it stays open.
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.keptCapacity)
            readIndex = 0
        }
        return message
    }
}
