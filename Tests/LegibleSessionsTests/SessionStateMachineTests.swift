import LegibleCore
import LegibleSessions
import LegibleWire
import Testing

@Suite("Session state machine")
struct SessionStateMachineTests {
    let configuration = SessionConfiguration(
        sessionID: "s1", serverVersion: "test",
        limits: ServerLimits(maxMessageBytes: 1024, pendingFramesPerSession: 1, workers: 1, replicasPerScript: 1),
        availableScripts: [.latin])

    func jpeg(_ id: UInt64) -> Frame { Frame(frameID: id, image: EncodedImage(encoding: .jpeg, data: [0xFF, 0xD8])) }

    func started() -> SessionStateMachine {
        var machine = SessionStateMachine(configuration: configuration)
        _ = machine.receive(.start(StartSession()))
        return machine
    }

    @Test func startRegistersAndAnswers() {
        var machine = SessionStateMachine(configuration: configuration)
        let actions = machine.receive(.start(StartSession()))
        guard case .register(let settings) = actions.first, case .send(.started(let started)) = actions.last else {
            Issue.record("unexpected \(actions)")
            return
        }
        #expect(settings.script == .latin)
        #expect(started.sessionID == "s1")
    }

    @Test func anythingBeforeStartIsFatal() {
        var machine = SessionStateMachine(configuration: configuration)
        let actions = machine.receive(.frame(jpeg(1)))
        #expect(actions.count == 2)
        guard case .send(.error(let error)) = actions.first else { return #expect(Bool(false)) }
        #expect(error.code == LegibleError.Code.failedPrecondition.rawValue && error.fatal)
        #expect(actions.last == .close)
        #expect(machine.isClosed)
    }

    @Test func missingScriptNamesThePackage() {
        var machine = SessionStateMachine(configuration: configuration)
        let actions = machine.receive(.start(StartSession(options: RecognitionOptions(scripts: [.known(.korean)]))))
        guard case .send(.error(let error)) = actions.first else { return #expect(Bool(false)) }
        #expect(error.code == LegibleError.Code.failedPrecondition.rawValue)
        #expect(error.message.contains("tesseract-ocr-script-hang"))
    }

    @Test func endWaitsForEveryAnswerThenSummarises() {
        var machine = started()
        #expect(machine.receive(.frame(jpeg(1))).count == 1)
        #expect(machine.receive(.frame(jpeg(2))).count == 1)
        #expect(machine.receive(.end) == [])
        #expect(machine.outstandingFrames == 2)
        #expect(machine.frameAnswered(FrameResult(frameID: 1, status: .dropped)).count == 1)
        let last = machine.frameAnswered(FrameResult(frameID: 2, status: .recognized))
        #expect(last.count == 3)
        guard case .send(.summary(let summary)) = last[1] else { return #expect(Bool(false)) }
        #expect(summary == SessionSummary(framesReceived: 2, framesRecognized: 1, framesDropped: 1))
        #expect(last[2] == .close)
    }

    @Test func badFramesFailAloneWithoutAnEngine() {
        var machine = started()
        let cases: [(Frame, LegibleError.Code)] = [
            (Frame(frameID: 1, encoding: nil, data: [1]), .invalidArgument),
            (Frame(frameID: 2, encoding: .unknown(99), data: [1]), .invalidArgument),
            (Frame(frameID: 3, encoding: .known(.jpeg), data: [1], orientation: .unknown(9)), .invalidArgument),
            (Frame(frameID: 4, encoding: .known(.jpeg), data: []), .invalidArgument),
            (
                Frame(frameID: 5, encoding: .known(.png), data: [1], regionOfInterest: Rect(x: 10, y: 10, width: 0, height: 5)),
                .invalidArgument
            ),
        ]
        for (frame, code) in cases {
            let actions = machine.receive(.frame(frame))
            guard case .send(.result(let result)) = actions.first else { return #expect(Bool(false)) }
            #expect(result.frameID == frame.frameID && result.status == .failed && result.error?.code == code.rawValue)
        }
        #expect(machine.summary.framesFailed == 5)
        #expect(!machine.isClosed)
    }

    @Test func regionOfInterestAndAutoOrientationReachTheSettings() {
        var machine = SessionStateMachine(configuration: configuration)
        let region = Rect(x: 10, y: 20, width: 300, height: 40)
        let actions = machine.receive(
            .start(StartSession(options: RecognitionOptions(regionOfInterest: region, autoOrientation: true))))
        guard case .register(let settings) = actions.first else { return #expect(Bool(false)) }
        #expect(settings.regionOfInterest == region)
        #expect(settings.autoOrientation)
        // A frame's own rectangle is checked for emptiness only; the engine clips it.
        let frame = Frame(
            frameID: 1, encoding: .known(.nv12), data: [1], regionOfInterest: Rect(x: -50, y: -50, width: 5000, height: 5))
        guard case .submit(let submitted, _) = machine.receive(.frame(frame)).first else { return #expect(Bool(false)) }
        #expect(submitted == frame)
    }

    @Test func emptySessionRegionIsRefusedAtStart() {
        var machine = SessionStateMachine(configuration: configuration)
        let actions = machine.receive(
            .start(StartSession(options: RecognitionOptions(regionOfInterest: Rect(x: 0, y: 0, width: 10, height: 0)))))
        guard case .send(.error(let error)) = actions.first else { return #expect(Bool(false)) }
        #expect(error.code == LegibleError.Code.invalidArgument.rawValue && error.fatal)
        #expect(machine.isClosed)
    }

    @Test func shutdownDrainsLikeEnd() {
        var machine = started()
        _ = machine.receive(.frame(jpeg(1)))
        #expect(machine.shutdown() == [])
        #expect(machine.frameAnswered(FrameResult(frameID: 1, status: .recognized)).last == .close)
    }

    @Test func pingIsAnswered() {
        var machine = started()
        #expect(machine.receive(.ping(nonce: 9)) == [.send(.pong(nonce: 9))])
    }
}

@Suite("Frame scheduler")
struct FrameSchedulerTests {
    let engine = EngineID(script: .latin, replica: 0)

    @Test func newestPendingWinsAndDisplacedIsReturned() {
        var scheduler = FrameScheduler<Int, Int>(engines: [engine], workers: 1)
        scheduler.addSession(1, script: .latin)
        #expect(scheduler.submit(10, for: 1).dispatches.map(\.job) == [10])
        let second = scheduler.submit(11, for: 1)
        #expect(second.displaced == nil && second.dispatches.isEmpty)
        let third = scheduler.submit(12, for: 1)
        #expect(third.displaced == 11)
        #expect(scheduler.completed(engine: engine, session: 1).map(\.job) == [12])
        #expect(scheduler.droppedCount == 1)
    }

    @Test func roundRobinAcrossSessions() {
        var scheduler = FrameScheduler<Int, Int>(engines: [engine], workers: 1)
        for session in 1...3 { scheduler.addSession(session, script: .latin) }
        _ = scheduler.submit(100, for: 1)  // runs
        _ = scheduler.submit(200, for: 2)
        _ = scheduler.submit(300, for: 3)
        _ = scheduler.submit(101, for: 1)  // session 1 again, behind 2 and 3
        var order: [Int] = []
        var session = 1
        for _ in 0..<3 {
            let next = scheduler.completed(engine: engine, session: session)
            order.append(next[0].job)
            session = next[0].session
        }
        #expect(order == [200, 300, 101])
    }

    @Test func workersCapRunningAcrossEngines() {
        let engines = [EngineID(script: .latin, replica: 0), EngineID(script: .latin, replica: 1)]
        var scheduler = FrameScheduler<Int, Int>(engines: engines, workers: 1)
        scheduler.addSession(1, script: .latin)
        scheduler.addSession(2, script: .latin)
        #expect(scheduler.submit(1, for: 1).dispatches.count == 1)
        #expect(scheduler.submit(2, for: 2).dispatches.isEmpty)
        #expect(scheduler.running == 1)
    }

    @Test func removedSessionGivesBackItsPendingJob() {
        var scheduler = FrameScheduler<Int, Int>(engines: [engine], workers: 1)
        scheduler.addSession(1, script: .latin)
        _ = scheduler.submit(1, for: 1)
        _ = scheduler.submit(2, for: 1)
        #expect(scheduler.removeSession(1) == 2)
        #expect(scheduler.completed(engine: engine, session: 1).isEmpty)
        scheduler.addSession(2, script: .latin)
        #expect(scheduler.submit(3, for: 2).dispatches.count == 1)
    }
}
