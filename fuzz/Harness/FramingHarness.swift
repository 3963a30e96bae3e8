internal import LegibleCore
internal import LegibleWire

/// Fuzz target (a): `MessageDeframer` fed the same byte stream in arbitrary chunks.
///
/// Input layout:
///
/// ```
/// +-------+---------------------------+==================================+
/// | limit |  chunking seed, 8 bytes   |  the stream, as a socket gives it  |
/// +-------+---------------------------+==================================+
/// ```
///
/// `limit` picks `maxMessageBytes` from a few sizes (0 included). The seed drives how the
/// stream is cut (empty chunks, single bytes, runs, the rest at once) and whether the messages
/// are drained after each chunk, as `Connection` does, or only after several.
///
/// Oracles: the deframer returns exactly what a one-pass reference parse of the whole stream
/// finds, whatever the chunking (the same messages, then the same error code or the same
/// buffered remainder); re-framing the messages gives back the consumed prefix byte for byte;
/// a failed deframer stays failed.
public enum FramingHarness {
    static let limits = [0, 1, 5, 16, 255, 4096, 1 << 20]

    public static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let maxBytes = limits[Int(input.byte()) % limits.count]
        var random = SplitMix64(state: input.integer(UInt64.self))
        let stream = input.rest
        let expected = reference(stream, maxMessageBytes: maxBytes)

        var deframer = MessageDeframer(maxMessageBytes: maxBytes)
        var messages: [[UInt8]] = []
        var failure: LegibleError?
        func drain() {
            guard failure == nil else { return }
            do throws(LegibleError) {
                while let message = try deframer.next() { messages.append(message) }
            } catch {
                failure = error
            }
        }
        var offset = 0
        while offset < stream.count {
            let count: Int
            switch random.below(8) {
            case 0: count = 0
            case 1: count = 1
            case 2: count = stream.count - offset
            case 3: count = random.below(MessageFraming.headerSize + 1)
            default: count = random.below(64)
            }
            let end = min(stream.count, offset + count)
            deframer.append(stream[offset..<end])
            offset = end
            if random.below(4) != 0 { drain() }
        }
        drain()

        invariant(messages == expected.messages, "messages differ from the one-pass parse")
        invariant(
            failure?.code == expected.error,
            "error \(String(describing: failure)) but expected \(String(describing: expected.error))")
        if failure != nil {
            // Cannot resynchronise: it stays failed, whatever arrives.
            deframer.append([0, 0, 0, 0, 0])
            var stillFailed = false
            do throws(LegibleError) { _ = try deframer.next() } catch { stillFailed = error.code == failure?.code }
            invariant(stillFailed, "a failed deframer recovered")
        } else {
            invariant(
                deframer.bufferedByteCount == stream.count - expected.consumed,
                "\(deframer.bufferedByteCount) bytes buffered, \(stream.count - expected.consumed) unconsumed")
            invariant(deframer.isAtMessageBoundary == (expected.consumed == stream.count), "boundary flag is wrong")
        }
        let reframed = messages.flatMap(MessageFraming.frame)
        invariant(
            reframed.count <= stream.count && reframed[...] == stream[..<reframed.count],
            "re-framed messages are not the consumed bytes")
    }

    /// The stream parsed in one pass, straight from the wire format.
    static func reference(_ stream: [UInt8], maxMessageBytes: Int)
        -> (messages: [[UInt8]], error: LegibleError.Code?, consumed: Int)
    {
        var messages: [[UInt8]] = []
        var offset = 0
        while stream.count - offset >= MessageFraming.headerSize {
            if stream[offset] != 0 { return (messages, .unimplemented, offset) }
            var length = 0
            for index in 1...4 { length = length << 8 | Int(stream[offset + index]) }
            if length > maxMessageBytes { return (messages, .resourceExhausted, offset) }
            let start = offset + MessageFraming.headerSize
            guard stream.count - start >= length else { break }
            messages.append(Array(stream[start..<start + length]))
            offset = start + length
        }
        return (messages, nil, offset)
    }
}
