import Foundation
import LegibleCore
import LegibleTesting
import LegibleWire
import Testing

@testable import LegibleServer

/// A `SessionStream` in memory: what the server writes is recorded for the test to take, and
/// the test's messages reach the session's handler on the loop thread. No socket, no bytes.
final class InMemoryStream: SessionStream, @unchecked Sendable {
    enum Event: Equatable {
        case message(ServerMessage)
        /// The server closed the stream ("finished" after its last message, or why it aborted).
        case ended(String)
    }

    weak var handler: SessionHandler?
    var queuedBytes: Int { 0 }
    private let lock = NSLock()
    private var events: [Event] = []
    private let arrived = DispatchSemaphore(value: 0)
    private var ended = false

    // The server's side (loop thread).

    func write(_ message: ServerMessage) { record(.message(message)) }

    func finish() { end("finished") }

    func discardQueuedWrites() {}

    func abort(reason: String) { end(reason) }

    func readArrived() {}

    private func end(_ reason: String) {
        guard lock.withLock({ !ended }) else { return }
        lock.withLock { ended = true }
        record(.ended(reason))
        handler?.closed(reason: reason)
    }

    private func record(_ event: Event) {
        lock.withLock { events.append(event) }
        arrived.signal()
    }

    // The test's side.

    /// The next thing the server did with the stream, waiting for it up to `timeout`.
    func next(timeout: TimeInterval = 30) -> Event? {
        guard arrived.wait(timeout: .now() + timeout) == .success else { return nil }
        return lock.withLock { events.removeFirst() }
    }

    /// The next message, skipping nothing: fails the test if the stream ended instead.
    func nextMessage(timeout: TimeInterval = 30) -> ServerMessage? {
        switch next(timeout: timeout) {
        case .message(let message): return message
        case let other:
            Issue.record("expected a message, got \(String(describing: other))")
            return nil
        }
    }
}

extension RunningServer {
    /// A new in-memory stream, adopted by the server on its loop.
    func open() -> InMemoryStream {
        let stream = InMemoryStream()
        server.onLoop { $0.adopt(stream) }
        return stream
    }

    /// Delivers `messages` to the stream's session, in order, on the loop.
    func send(_ messages: [ClientMessage], on stream: InMemoryStream) {
        server.onLoop { _ in for message in messages { stream.handler?.received(message) } }
    }
}

/// The server core with an in-memory transport, the calibration engine (a fixed answer after a
/// fixed delay) and, for the deadlines, a manual clock: latest-wins, exactly one answer per
/// frame, max age, stalls, deadlines and draining — waiting on what the server writes, never
/// on sleeps.
@Suite("Server core over an in-memory transport")
struct InMemorySessionTests {
    static func frame(_ id: UInt64) -> Frame {
        RunningServer.grayFrame(id, shade: UInt8(truncatingIfNeeded: 30 * id))
    }

    static let readEverything = StartSession(options: RecognitionOptions(recognizeUnchanged: true))

    /// Starts a session and reads frame 0, so that the engine is loaded and idle.
    func startedAndWarm(_ running: RunningServer, options: StartSession = readEverything) -> InMemoryStream? {
        let stream = running.open()
        running.send([.start(options), .frame(Self.frame(0))], on: stream)
        guard case .started = stream.nextMessage(), case .result(let warm) = stream.nextMessage(),
            warm.frameID == 0, warm.status == .recognized
        else {
            Issue.record("the session did not start and read its first frame")
            return nil
        }
        return stream
    }

    /// Every result until the summary, by frame id; records a frame answered twice.
    func resultsUntilSummary(_ stream: InMemoryStream) -> ([UInt64: FrameStatus], SessionSummary?) {
        var statuses: [UInt64: FrameStatus] = [:]
        while let event = stream.next() {
            switch event {
            case .message(.result(let result)):
                #expect(statuses[result.frameID] == nil, "frame \(result.frameID) answered twice")
                statuses[result.frameID] = result.status
            case .message(.summary(let summary)):
                return (statuses, summary)
            case .message(let other):
                Issue.record("unexpected \(other)")
            case .ended(let reason):
                Issue.record("the stream ended (\(reason)) before the summary")
                return (statuses, nil)
            }
        }
        Issue.record("no summary")
        return (statuses, nil)
    }

    @Test func aBurstKeepsTheNewestFrameAndAnswersEachOnce() throws {
        let running = try RunningServer(delay: .milliseconds(200))
        defer { running.stop() }
        guard let stream = startedAndWarm(running) else { return }
        // Five frames at once while the engine is idle: 1 goes to it, 2-4 each replace the
        // one waiting, 5 waits for the engine.
        running.send((1...5).map { .frame(Self.frame($0)) } + [.end], on: stream)
        let (statuses, summary) = resultsUntilSummary(stream)
        #expect(statuses == [1: .recognized, 2: .dropped, 3: .dropped, 4: .dropped, 5: .recognized])
        #expect(summary == SessionSummary(framesReceived: 6, framesRecognized: 3, framesDropped: 3))
        #expect(stream.next() == .ended("finished"))
    }

    @Test func aFrameThatWaitedPastItsMaxAgeIsDropped() throws {
        let running = try RunningServer(delay: .milliseconds(300))
        defer { running.stop() }
        let options = StartSession(options: RecognitionOptions(maxFrameAgeMillis: 50, recognizeUnchanged: true))
        guard let stream = startedAndWarm(running, options: options) else { return }
        running.send([.frame(Self.frame(1)), .frame(Self.frame(2)), .end], on: stream)
        let (statuses, summary) = resultsUntilSummary(stream)
        #expect(statuses == [1: .recognized, 2: .dropped], "frame 2 waited 300 ms for the engine")
        #expect(summary?.framesDropped == 1)
    }

    @Test func aClientThatStopsReadingIsClosed() throws {
        let running = try RunningServer(delay: .milliseconds(1), manualClock: true)
        defer { running.stop() }
        guard let stream = startedAndWarm(running) else { return }
        running.server.onLoop { _ in stream.handler?.writeQueue(backedUp: true) }
        running.advance(by: .seconds(9))
        running.tick()
        // Under the 10 s stall nothing happens: the next thing written answers this ping.
        running.send([.ping(nonce: 7)], on: stream)
        #expect(stream.nextMessage() == .pong(nonce: 7))
        running.advance(by: .seconds(1))
        running.tick()
        guard case .error(let error) = stream.nextMessage(timeout: 10) else { return }
        #expect(error.code == LegibleError.Code.resourceExhausted.rawValue && error.fatal)
        #expect(stream.next(timeout: 10) == .ended("finished"))
    }

    @Test func aClientThatNeverStartsIsClosedAtTheFirstMessageDeadline() throws {
        let running = try RunningServer(delay: .milliseconds(1), manualClock: true)
        defer { running.stop() }
        let stream = running.open()
        running.advance(by: .seconds(10))
        running.tick()
        guard case .error(let error) = stream.nextMessage(timeout: 10) else { return }
        #expect(error.code == LegibleError.Code.deadlineExceeded.rawValue)
        #expect(stream.next(timeout: 10) == .ended("finished"))
    }

    @Test func drainAnswersEveryFrameThenEndsTheStream() throws {
        let running = try RunningServer(delay: .milliseconds(200))
        guard let stream = startedAndWarm(running) else {
            running.stop()
            return
        }
        running.send([.frame(Self.frame(1)), .frame(Self.frame(2))], on: stream)
        guard case .result(let first) = stream.nextMessage() else { return running.stop() }
        running.server.shutdownTrigger.drain(reason: "test")
        let (statuses, summary) = resultsUntilSummary(stream)
        #expect(first.frameID == 1 && statuses == [2: .recognized])
        #expect(summary?.framesReceived == 3)
        #expect(stream.next() == .ended("finished"))
        #expect(running.stopped.wait(timeout: .now() + 30) == .success, "run() did not return")
    }
}
