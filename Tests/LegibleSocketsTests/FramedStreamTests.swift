import Glibc
import LegibleCore
import LegibleSockets
import LegibleWire
import Testing

/// FramedStream over a socketpair: both ends in this thread, non-blocking, so every step is
/// an explicit read or flush.
@Suite("Framed stream")
struct FramedStreamTests {
    static func pair(
        watermarks: WriteWatermarks = .unbounded, maxMessageBytes: Int = 1 << 20, sendBuffer: Int32? = nil
    ) throws -> (FramedStream, FramedStream) {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        if var size = sendBuffer {
            setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let (a, b) = (Socket(descriptor: fds[0]), Socket(descriptor: fds[1]))
        try a.setNonBlocking()
        try b.setNonBlocking()
        return (
            FramedStream(socket: a, maxMessageBytes: maxMessageBytes, watermarks: watermarks),
            FramedStream(socket: b, maxMessageBytes: maxMessageBytes)
        )
    }

    /// Reads whatever has arrived and returns the whole messages.
    static func drain(_ stream: FramedStream) throws -> [[UInt8]] {
        var messages: [[UInt8]] = []
        while case .received = try stream.readOnce() {
            while let payload = try stream.nextMessage() { messages.append(payload) }
        }
        while let payload = try stream.nextMessage() { messages.append(payload) }
        return messages
    }

    @Test func messagesArriveWholeAndInOrderWithTheirTagsReported() throws {
        let (writer, reader) = try Self.pair()
        writer.enqueue([1, 2, 3], tag: 7)
        writer.enqueue([], tag: nil)
        writer.enqueue([9], tag: 8)
        var sent: [Int] = []
        let bytes = try writer.flush { sent.append($0) }
        #expect(bytes == 3 * MessageFraming.headerSize + 4)
        #expect(sent == [7, 8])
        #expect(!writer.hasQueuedBytes)
        #expect(try Self.drain(reader) == [[1, 2, 3], [], [9]])
        #expect(reader.isAtMessageBoundary)
    }

    @Test func aFullSocketKeepsTheRestQueuedAndBacksUpPastTheHighWatermark() throws {
        let (writer, reader) = try Self.pair(
            watermarks: WriteWatermarks(high: 200_000, low: 50_000), sendBuffer: 16 * 1024)
        let payload = [UInt8](repeating: 0xAB, count: 100_000)
        for tag in 0..<4 { writer.enqueue(payload, tag: tag) }
        #expect(writer.isBackedUp)
        var sent: [Int] = []
        try writer.flush { sent.append($0) }
        // The socket took part of it: the rest waits, still over the high watermark.
        #expect(writer.hasQueuedBytes && writer.isBackedUp)
        // The reader reads; the writer flushes; until all four are across.
        var received: [[UInt8]] = []
        while received.count < 4 {
            received += try Self.drain(reader)
            try writer.flush { sent.append($0) }
        }
        #expect(received == Array(repeating: payload, count: 4))
        #expect(sent == [0, 1, 2, 3])
        #expect(!writer.isBackedUp && writer.queuedBytes == 0)
    }

    @Test func theEndOfTheStreamIsCleanOnlyBetweenMessages() throws {
        let (writer, reader) = try Self.pair()
        writer.enqueue([1, 2, 3, 4])
        try writer.flush()
        #expect(try reader.readOnce() == .received(9))
        #expect(try reader.nextMessage() == [1, 2, 3, 4])
        #expect(try reader.readOnce() == .wouldBlock)
        // Half a message, then the writer goes.
        try writer.socket.sendAll([0, 0, 0, 0, 10, 1, 2])
        writer.socket.close()
        #expect(try reader.readOnce() == .received(7))
        #expect(try reader.nextMessage() == nil)
        #expect(try reader.readOnce() == .endOfStream)
        #expect(!reader.isAtMessageBoundary)
        #expect(throws: LegibleError.self) { try reader.receiveMessage() }
    }

    @Test func anOversizedMessageFailsAtItsHeaderBeforeItsBodyIsBuffered() throws {
        let (writer, reader) = try Self.pair(maxMessageBytes: 16)
        try writer.socket.sendAll([0, 0, 0x10, 0, 0])  // declares 1 MiB
        _ = try reader.readOnce()
        #expect(throws: LegibleError.self) { try reader.nextMessage() }
    }

    @Test func discardingTheQueueForgetsItAndEndsTheBackup() throws {
        let (writer, _) = try Self.pair(watermarks: WriteWatermarks(high: 10, low: 5))
        writer.enqueue([UInt8](repeating: 1, count: 100))
        #expect(writer.isBackedUp)
        writer.discardQueue()
        #expect(!writer.isBackedUp && !writer.hasQueuedBytes)
        #expect(try writer.flush() == 0)
    }

    @Test func connectingTriesEachAddressInTurnAndNamesTheLastFailure() {
        let missing = ServerAddress.unix(path: "/nonexistent/legible-\(UInt32.random(in: 0...UInt32.max)).sock")
        #expect(throws: LegibleError.self) { try Socket.connect(toFirstOf: [missing, missing]) }
        #expect(throws: LegibleError.self) { try Socket.connect(toFirstOf: []) }
    }
}
