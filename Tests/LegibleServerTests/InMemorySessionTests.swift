import Dispatch
import LegibleCore
import LegibleTesting
import LegibleWire
import Testing

@testable import LegibleServer

extension InMemoryStream {
    /// The next message: records a test failure if the stream ended or nothing came.
    func nextMessage(timeout seconds: Double = 30) -> ServerMessage? {
        switch next(timeout: seconds) {
        case .message(let message): return message
        case let other:
            Issue.record("expected a message, got \(String(describing: other))")
            return nil
        }
    }
}

extension RunningServer {
    /// A new in-memory stream, adopted by the server on its loop.
    func open() -> InMemoryStream { InMemoryStream.open(on: server) }

    /// Delivers `messages` to the stream's session, in order, on the loop.
    func send(_ messages: [ClientMessage], on stream: InMemoryStream) { stream.send(messages, through: server) }
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
        stream.onHandler(through: running.server) { $0.writeQueue(backedUp: true) }
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
