import LegibleCore
import Testing

@testable import LegibleWire

@Suite("Framing")
struct FramingTests {
    let messages: [[UInt8]] = [Array("hello".utf8), [], Array(repeating: 0xAB, count: 70_000), [1]]

    var stream: [UInt8] { messages.flatMap(MessageFraming.frame) }

    func decodeAll(_ chunks: [[UInt8]], max: Int = 1 << 20) throws -> [[UInt8]] {
        var deframer = MessageDeframer(maxMessageBytes: max)
        var out: [[UInt8]] = []
        for chunk in chunks {
            deframer.append(chunk)
            while let message = try deframer.next() { out.append(message) }
        }
        #expect(deframer.isAtMessageBoundary)
        return out
    }

    /// A server takes small messages until it knows the peer, then raises the limit: the
    /// limit in force when a message's header is read is the one that counts.
    @Test func aRaisedLimitTakesTheBiggerMessagesAfterIt() throws {
        var deframer = MessageDeframer(maxMessageBytes: 8)
        deframer.append(MessageFraming.frame([1, 2, 3]))
        #expect(try deframer.next() == [1, 2, 3])
        deframer.maxMessageBytes = 64
        deframer.append(MessageFraming.frame([UInt8](repeating: 7, count: 40)))
        #expect(try deframer.next() == [UInt8](repeating: 7, count: 40))
        var strict = MessageDeframer(maxMessageBytes: 8)
        strict.append(MessageFraming.frame([UInt8](repeating: 7, count: 40)))
        #expect(throws: LegibleError.self) { try strict.next() }
    }

    @Test func headerIsFlagThenBigEndianLength() {
        #expect(MessageFraming.frame([9, 8, 7]) == [0, 0, 0, 0, 3, 9, 8, 7])
        #expect(Array(MessageFraming.frame(Array(repeating: 0, count: 0x0102_03)).prefix(5)) == [0, 0, 1, 2, 3])
    }

    @Test func batchedInOneRead() throws {
        #expect(try decodeAll([stream]) == messages)
    }

    @Test func oneByteAtATime() throws {
        #expect(try decodeAll(stream.map { [$0] }) == messages)
    }

    @Test(arguments: [2, 3, 5, 7, 4096, 65_536])
    func splitIntoChunks(size: Int) throws {
        let chunks = stride(from: 0, to: stream.count, by: size).map {
            Array(stream[$0..<min($0 + size, stream.count)])
        }
        #expect(try decodeAll(chunks) == messages)
    }

    @Test func zeroLengthMessage() throws {
        #expect(try decodeAll([[0, 0, 0, 0, 0]]) == [[]])
    }

    @Test func partialMessageWaitsForMore() throws {
        var deframer = MessageDeframer(maxMessageBytes: 100)
        deframer.append([0, 0, 0, 0, 4, 1, 2])
        #expect(try deframer.next() == nil)
        #expect(!deframer.isAtMessageBoundary)
        deframer.append([3, 4])
        #expect(try deframer.next() == [1, 2, 3, 4])
    }

    @Test func oversizeIsRejectedFromTheHeaderAlone() {
        var deframer = MessageDeframer(maxMessageBytes: 1024)
        // Only the header: 0xFFFFFFFF declared, nothing of it sent.
        deframer.append([0, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(deframer.bufferedByteCount == 5)
        let error = #expect(throws: LegibleError.self) { try deframer.next() }
        #expect(error?.code == .resourceExhausted)
        // The stream cannot be resynchronised: it stays failed.
        deframer.append([0, 0, 0, 0, 0])
        #expect(throws: LegibleError.self) { try deframer.next() }
    }

    @Test func limitIsInclusive() throws {
        #expect(try decodeAll([MessageFraming.frame(Array(repeating: 1, count: 16))], max: 16).count == 1)
        #expect(throws: LegibleError.self) {
            try decodeAll([MessageFraming.frame(Array(repeating: 1, count: 17))], max: 16)
        }
    }

    @Test(arguments: [UInt8(1), 2, 0x80])
    func nonZeroFlagIsUnimplemented(flag: UInt8) {
        var deframer = MessageDeframer(maxMessageBytes: 1024)
        deframer.append([flag, 0, 0, 0, 1, 0])
        let error = #expect(throws: LegibleError.self) { try deframer.next() }
        #expect(error?.code == .unimplemented)
    }
}
