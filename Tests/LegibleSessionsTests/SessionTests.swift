import LegibleCore
import LegibleSessions
import LegibleTesting
import LegibleWire
import Testing

/// One session driven by events and a manual clock: deadlines, arrival times, drops and the
/// scene steps after an engine, without sockets or threads.
@Suite("Session")
struct SessionTests {
    static let deadlines = ClientDeadlines(
        firstMessage: .seconds(10), message: .seconds(5), idle: .seconds(60), writeStall: .seconds(30))
    let configuration = SessionConfiguration(
        sessionID: "s1", serverVersion: "test",
        limits: ServerLimits(maxMessageBytes: 1024, pendingFramesPerSession: 1, workers: 1, replicasPerScript: 1),
        availableScripts: [.latin])

    func frame(_ id: UInt64) -> Frame { Frame(frameID: id, image: EncodedImage(encoding: .jpeg, data: [0xFF, 0xD8])) }

    func started(at clock: ManualClock) -> Session {
        var session = Session(configuration: configuration, deadlines: Self.deadlines, connectedAt: clock.now)
        _ = session.received(.start(StartSession()), now: clock.now)
        return session
    }

    /// The fatal error a batch of actions sends, if any.
    func fatalError(in actions: [Session.Action]) -> WireError? {
        for action in actions {
            if case .send(.error(let error), _) = action, error.fatal { return error }
        }
        return nil
    }

    func closes(_ actions: [Session.Action]) -> Bool {
        actions.contains { if case .close = $0 { true } else { false } }
    }

    @Test func aFrameCarriesTheTimeItWasReadToTheScheduler() {
        var clock = ManualClock()
        var session = started(at: clock)
        clock.advance(by: .milliseconds(2500))
        let actions = session.received(.frame(frame(1)), now: clock.now)
        guard case .submit(let submitted, _, let arrivedAt) = actions.first, actions.count == 1 else {
            Issue.record("unexpected \(actions)")
            return
        }
        #expect(submitted.frameID == 1)
        #expect(arrivedAt == .milliseconds(2500))
    }

    @Test func noStartSessionInTimeFailsTheStream() {
        var clock = ManualClock()
        var session = Session(configuration: configuration, deadlines: Self.deadlines, connectedAt: clock.now)
        clock.advance(by: .seconds(9))
        #expect(session.tick(now: clock.now).isEmpty)
        clock.advance(by: .seconds(1))
        let actions = session.tick(now: clock.now)
        #expect(fatalError(in: actions)?.code == LegibleError.Code.deadlineExceeded.rawValue)
        #expect(fatalError(in: actions)?.message.contains("no StartSession") == true)
        #expect(closes(actions))
        #expect(session.tick(now: clock.now + .seconds(60)).isEmpty, "a closed session is closed once")
    }

    @Test func aMessageBegunMustArriveWhole() {
        var clock = ManualClock()
        var session = started(at: clock)
        clock.advance(by: .seconds(1))
        session.bytesArrived(inMessage: true, now: clock.now)
        clock.advance(by: .seconds(4))
        session.bytesArrived(inMessage: true, now: clock.now)
        #expect(session.tick(now: clock.now).isEmpty, "still within 5 s of the message's first bytes")
        clock.advance(by: .seconds(1))
        let actions = session.tick(now: clock.now)
        #expect(fatalError(in: actions)?.code == LegibleError.Code.deadlineExceeded.rawValue)
        #expect(fatalError(in: actions)?.message.contains("took longer") == true)
    }

    @Test func anIdleSessionClosesOnlyWithNoFrameOutstanding() {
        var clock = ManualClock()
        var session = started(at: clock)
        let frameActions = session.received(.frame(frame(1)), now: clock.now)
        guard case .submit(let submitted, let settings, _) = frameActions.first else {
            Issue.record("unexpected \(frameActions)")
            return
        }
        clock.advance(by: .seconds(120))
        #expect(session.tick(now: clock.now).isEmpty, "the server owes an answer: the client may wait")
        _ = session.engineAnswered(
            .failed(LegibleError(.internal, "test")), frame: submitted, settings: settings, timing: Timing())
        let actions = session.tick(now: clock.now)
        #expect(fatalError(in: actions)?.message.contains("no message for") == true)
    }

    @Test func aClientThatDoesNotReadIsClosedAfterTheStall() {
        var clock = ManualClock()
        var session = started(at: clock)
        session.writeQueue(backedUp: true, now: clock.now)
        clock.advance(by: .seconds(20))
        session.writeQueue(backedUp: false, now: clock.now)
        session.writeQueue(backedUp: true, now: clock.now)
        clock.advance(by: .seconds(29))
        #expect(session.tick(now: clock.now).isEmpty, "the stall restarts when the queue drains")
        clock.advance(by: .seconds(1))
        let actions = session.tick(now: clock.now)
        guard let discard = actions.firstIndex(where: { if case .discardQueue = $0 { true } else { false } }),
            let error = actions.firstIndex(where: { if case .send(.error, _) = $0 { true } else { false } }),
            case .disconnect = actions.last
        else {
            Issue.record("unexpected \(actions)")
            return
        }
        #expect(discard < error, "the unread results go, the error takes their place")
        #expect(fatalError(in: actions)?.code == LegibleError.Code.resourceExhausted.rawValue)
    }

    @Test func aDroppedFrameSaysWhy() {
        var session = started(at: ManualClock())
        _ = session.received(.frame(frame(7)), now: .zero)
        let actions = session.frameDropped(frame(7), reason: .tooOld, timing: Timing(totalMicros: 900))
        guard case .send(.result(let result), let reason) = actions.first else {
            Issue.record("unexpected \(actions)")
            return
        }
        #expect(result.frameID == 7 && result.status == .dropped && result.timing?.totalMicros == 900)
        #expect(reason == .tooOld)
        #expect(session.outstandingFrames == 0)
    }

    @Test func readFramesGetTrackedLinesAndSkippedOnesCarryThem() {
        var session = started(at: ManualClock())
        let text = RecognizedText(
            text: "EXIT",
            blocks: [
                TextBlock(
                    text: "EXIT", frame: Rect(x: 10, y: 10, width: 80, height: 20), confidence: 0.9,
                    recognizedLanguages: ["en"],
                    lines: [
                        TextLine(
                            text: "EXIT", frame: Rect(x: 10, y: 10, width: 80, height: 20), confidence: 0.9,
                            recognizedLanguages: ["en"],
                            elements: [
                                TextElement(
                                    text: "EXIT", frame: Rect(x: 10, y: 10, width: 80, height: 20), confidence: 0.9,
                                    recognizedLanguages: ["en"])
                            ])
                    ])
            ], imageWidth: 320, imageHeight: 240)
        let scene = SceneObservation(
            thumbnail: LumaThumbnail(cells: [Float](repeating: 128, count: 32 * 18)), policy: SkipPolicy(),
            sceneDifference: 0, motion: 0)
        let settings = SessionSettings(engineKey: EngineKey(models: ["eng"]), stableAfter: 2)
        var results: [FrameResult] = []
        for id in UInt64(1)...2 {
            _ = session.received(.frame(frame(id)), now: .zero)
            let answer = EngineAnswer.recognized(
                .init(
                    text: text, quality: FrameQuality(),
                    orientation: AppliedOrientation(orientation: .up, source: .default),
                    decodeMicros: 10, recognizeMicros: 20, scene: scene))
            for case .send(.result(let result), _) in session.engineAnswered(
                answer, frame: frame(id), settings: settings, timing: Timing(totalMicros: 40))
            {
                results.append(result)
            }
        }
        _ = session.received(.frame(frame(3)), now: .zero)
        let skip = EngineAnswer.skipped(
            .init(
                reason: .unchanged, scene: scene, orientation: AppliedOrientation(orientation: .up, source: .default),
                decodeMicros: 5))
        for case .send(.result(let result), _) in session.engineAnswered(
            skip, frame: frame(3), settings: settings, timing: Timing())
        {
            results.append(result)
        }
        #expect(results.map(\.status) == [.recognized, .recognized, .skipped])
        #expect(results[0].changes?.added.count == 1 && results[1].changes?.added.isEmpty == true)
        #expect(results[0].timing?.recognizeMicros == 20 && results[0].timing?.totalMicros == 40)
        #expect(!results[0].stable && results[1].stable, "stable after 2 results holding the line")
        let lineID = results[0].text?.blocks.first?.lines.first?.trackID
        #expect(lineID != nil && results[2].text?.blocks.first?.lines.first?.trackID == lineID)
        #expect(session.sceneSnapshot(now: .zero).textHeight == 20)
    }
}

/// A session whose lines are read script by script sends each frame first to the engine of
/// the script that read most lines of its last recognized frame.
@Suite("Session: the lead script")
struct SessionLeadScriptTests {
    static let configuration: SessionConfiguration = {
        var configuration = SessionConfiguration(
            sessionID: "s1", serverVersion: "test",
            limits: ServerLimits(maxMessageBytes: 1024, pendingFramesPerSession: 1, workers: 1, replicasPerScript: 1),
            availableScripts: [.latin, .korean, .devanagari], installedModels: ["eng", "kor", "Devanagari"])
        configuration.readsLinesByScript = true
        return configuration
    }()

    func frame(_ id: UInt64) -> Frame { Frame(frameID: id, image: EncodedImage(encoding: .jpeg, data: [0xFF, 0xD8])) }

    func recognized(_ scripts: [Script]) -> EngineAnswer {
        let lines = scripts.enumerated().map { index, script in
            TextLine(
                text: "line \(index)", frame: Rect(x: 0, y: Int32(index) * 20, width: 100, height: 16),
                confidence: 0.9, recognizedLanguages: [], elements: [], script: script)
        }
        return .recognized(
            .init(
                text: RecognizedText(
                    blocks: [
                        TextBlock(
                            text: "", frame: Rect(x: 0, y: 0, width: 100, height: 60), confidence: 0.9,
                            recognizedLanguages: [], lines: lines)
                    ], imageWidth: 320, imageHeight: 240),
                quality: FrameQuality(), orientation: AppliedOrientation(orientation: .up, source: .default),
                decodeMicros: 1, recognizeMicros: 1,
                scene: SceneObservation(
                    thumbnail: LumaThumbnail(cells: [Float](repeating: 128, count: 32 * 18)), policy: SkipPolicy(),
                    sceneDifference: 0, motion: 0)))
    }

    /// The first line script of each submitted frame, and whether an update came before it.
    func submitted(_ actions: [Session.Action]) -> (first: Script?, updated: Bool, settings: SessionSettings?) {
        var updated = false
        for action in actions {
            if case .update = action { updated = true }
            if case .submit(_, let settings, _) = action {
                return (settings.lineScripts.first?.script, updated, settings)
            }
        }
        return (nil, updated, nil)
    }

    @Test func theScriptThatReadMostLinesLeadsTheNextFrame() {
        var session = Session(
            configuration: Self.configuration, deadlines: SessionTests.deadlines, connectedAt: .zero)
        let start = session.received(
            .start(StartSession(options: RecognitionOptions(automaticallyDetectScript: true))), now: .zero)
        guard case .register(let registered) = start.first else {
            Issue.record("\(start)")
            return
        }
        #expect(registered.lineScripts.map(\.script) == [.latin, .korean, .devanagari])

        // The first frame goes to the session's first script's engine, as registered.
        var (first, updated, settings) = submitted(session.received(.frame(frame(1)), now: .zero))
        #expect(first == .latin && !updated)
        _ = session.engineAnswered(
            recognized([.korean, .latin, .korean]), frame: frame(1), settings: settings!, timing: Timing())

        // Mostly Korean: the next frame goes to the Korean engine first, the scheduler told so.
        (first, updated, settings) = submitted(session.received(.frame(frame(2)), now: .zero))
        #expect(first == .korean && updated)
        #expect(settings?.engineKey == EngineKey(models: ["kor"]))
        #expect(settings?.lineScripts.map(\.script) == [.korean, .latin, .devanagari])
        _ = session.engineAnswered(recognized([.korean]), frame: frame(2), settings: settings!, timing: Timing())

        // The same lead: no update. A frame with no lines keeps the lead.
        (first, updated, settings) = submitted(session.received(.frame(frame(3)), now: .zero))
        #expect(first == .korean && !updated)
        _ = session.engineAnswered(recognized([]), frame: frame(3), settings: settings!, timing: Timing())
        (first, updated, _) = submitted(session.received(.frame(frame(4)), now: .zero))
        #expect(first == .korean && !updated)
    }

    @Test func aSessionOfOneScriptIsLeftAlone() {
        var configuration = Self.configuration
        configuration.readsLinesByScript = false
        var session = Session(configuration: configuration, deadlines: SessionTests.deadlines, connectedAt: .zero)
        _ = session.received(
            .start(StartSession(options: RecognitionOptions(automaticallyDetectScript: true))), now: .zero)
        var (first, updated, settings) = submitted(session.received(.frame(frame(1)), now: .zero))
        #expect(first == nil && !updated && settings?.lineScripts.isEmpty == true)
        _ = session.engineAnswered(recognized([.korean]), frame: frame(1), settings: settings!, timing: Timing())
        (first, updated, settings) = submitted(session.received(.frame(frame(2)), now: .zero))
        #expect(first == nil && !updated && settings?.engineKey == EngineKey(models: ["eng"]))
    }
}
