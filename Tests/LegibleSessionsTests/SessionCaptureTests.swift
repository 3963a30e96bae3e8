import LegibleCore
import LegibleSessions
import LegibleWire
import Testing

/// A session's capture goals: checked at StartSession, counted over the engine's answers,
/// reported in results and the summary, and the session ended by its last capture when asked.
@Suite("Session: capture goals")
struct SessionCaptureTests {
    static let deadlines = ClientDeadlines(
        firstMessage: .seconds(10), message: .seconds(5), idle: .seconds(60), writeStall: .seconds(30))

    func configuration() -> SessionConfiguration {
        var configuration = SessionConfiguration(
            sessionID: "s1", serverVersion: "test",
            limits: ServerLimits(maxMessageBytes: 1024, pendingFramesPerSession: 1, workers: 1, replicasPerScript: 1),
            availableScripts: [.latin])
        configuration.captureGoalCheck = { goals throws(LegibleError) in
            if goals.contains(where: { $0.target == .pattern("(") }) {
                throw LegibleError(.invalidArgument, "missing )")
            }
        }
        return configuration
    }

    func frame(_ id: UInt64) -> Frame { Frame(frameID: id, image: EncodedImage(encoding: .jpeg, data: [0xFF, 0xD8])) }

    func answer(_ candidates: [CaptureCandidate]) -> EngineAnswer {
        .recognized(
            .init(
                text: RecognizedText(imageWidth: 320, imageHeight: 240), quality: FrameQuality(),
                orientation: AppliedOrientation(orientation: .up, source: .default), decodeMicros: 1,
                recognizeMicros: 1,
                scene: SceneObservation(
                    thumbnail: LumaThumbnail(cells: [Float](repeating: 128, count: 32 * 18)), policy: SkipPolicy(),
                    sceneDifference: 0, motion: 0),
                captureCandidates: candidates))
    }

    @Test func theLastCaptureEndsTheSessionWithASummaryListingTheCaptures() {
        var session = Session(configuration: configuration(), deadlines: Self.deadlines, connectedAt: .zero)
        let goals = [
            CaptureGoal(name: "phone", target: .entity(.phoneNumber), confirmations: 2, endWhenCaptured: true)
        ]
        let started = session.received(
            .start(StartSession(options: RecognitionOptions(captureGoals: goals))), now: .zero)
        guard case .register(let settings) = started.first else {
            Issue.record("not registered: \(started)")
            return
        }
        #expect(settings.captureGoals == goals)
        let phone = CaptureCandidate(goal: "phone", value: "5551234", frames: [], confidence: 0.9)
        var results: [FrameResult] = []
        var summaries: [SessionSummary] = []
        var closed = false
        func take(_ actions: [Session.Action]) {
            for action in actions {
                switch action {
                case .send(.result(let result), _): results.append(result)
                case .send(.summary(let summary), _): summaries.append(summary)
                case .close: closed = true
                default: break
                }
            }
        }
        func answered(_ id: UInt64, _ candidates: [CaptureCandidate]) {
            take(session.engineAnswered(answer(candidates), frame: frame(id), settings: settings, timing: Timing()))
        }
        _ = session.received(.frame(frame(1)), now: .zero)
        answered(1, [phone])
        // Frame 3 arrives while frame 2 is read; frame 2's answer captures the phone.
        _ = session.received(.frame(frame(2)), now: .zero)
        _ = session.received(.frame(frame(3)), now: .zero)
        answered(2, [phone])
        #expect(results.map { $0.captures.map(\.confirmations) } == [[1], [2]])
        #expect(results.map { $0.captures.map(\.captured) } == [[false], [true]])
        #expect(summaries.isEmpty && !closed, "frame 3 is still owed its answer")
        // Frame 4, sent before the client heard: refused, saying why, not read.
        take(session.received(.frame(frame(4)), now: .zero))
        #expect(results.last?.frameID == 4 && results.last?.status == .failed)
        #expect(results.last?.error?.message == "frame sent after the session ended: every capture goal is captured")
        // Frame 3's answer reports nothing more for the captured goal; then the summary, then close.
        answered(3, [phone])
        #expect(results.last?.frameID == 3 && results.last?.captures.isEmpty == true)
        #expect(summaries.map { $0.captures.map(\.value) } == [["5551234"]])
        #expect(summaries.first?.framesReceived == 4 && summaries.first?.framesFailed == 1)
        #expect(closed)
    }

    @Test func goalsTheServerRefusesFailTheStart() {
        var session = Session(configuration: configuration(), deadlines: Self.deadlines, connectedAt: .zero)
        let actions = session.received(
            .start(
                StartSession(options: RecognitionOptions(captureGoals: [CaptureGoal(name: "x", target: .pattern("("))]))
            ),
            now: .zero)
        let errors = actions.compactMap { action -> WireError? in
            if case .send(.error(let error), _) = action { return error }
            return nil
        }
        #expect(errors.map(\.code) == [LegibleError.Code.invalidArgument.rawValue])
        #expect(errors.first?.fatal == true && errors.first?.message.contains("missing )") == true)
    }
}
