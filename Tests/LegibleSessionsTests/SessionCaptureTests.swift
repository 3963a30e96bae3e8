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
        for id in UInt64(1)...2 {
            _ = session.received(.frame(frame(id)), now: .zero)
            for action in session.engineAnswered(
                answer([phone]), frame: frame(id), settings: settings, timing: Timing())
            {
                switch action {
                case .send(.result(let result), _): results.append(result)
                case .send(.summary(let summary), _): summaries.append(summary)
                case .close: closed = true
                default: break
                }
            }
        }
        #expect(results.map { $0.captures.map(\.confirmations) } == [[1], [2]])
        #expect(results.map { $0.captures.map(\.captured) } == [[false], [true]])
        #expect(summaries.map { $0.captures.map(\.value) } == [["5551234"]])
        #expect(closed)
        // A frame the client sent before it heard: refused, the session being over.
        let late = session.received(.frame(frame(3)), now: .zero)
        #expect(late.allSatisfy { if case .submit = $0 { false } else { true } })
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
