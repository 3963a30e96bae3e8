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
        #expect(settings.engineKey == EngineKey(models: ["eng"]))
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
        #expect(error.message.contains("tesseract-ocr-kor"))
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
                Frame(
                    frameID: 5, encoding: .known(.png), data: [1],
                    regionOfInterest: Rect(x: 10, y: 10, width: 0, height: 5)),
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
            frameID: 1, encoding: .known(.nv12), data: [1],
            regionOfInterest: Rect(x: -50, y: -50, width: 5000, height: 5))
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

    @Test func scriptsAndHintsResolveToOneEngineOfTheirModels() {
        let all = SessionConfiguration(
            sessionID: "s", serverVersion: "t", limits: configuration.limits, availableScripts: Script.allCases,
            installedModels: ["eng", "Latin", "Devanagari", "HanS", "jpn", "kor"])
        func key(_ options: RecognitionOptions) -> EngineKey? {
            var machine = SessionStateMachine(configuration: all)
            guard case .register(let settings) = machine.receive(.start(StartSession(options: options))).first else {
                return nil
            }
            return settings.engineKey
        }
        #expect(key(RecognitionOptions()) == EngineKey(models: ["eng"]))
        #expect(
            key(RecognitionOptions(scripts: [.known(.latin), .known(.devanagari)]))
                == EngineKey(models: ["eng", "Devanagari"]))
        #expect(key(RecognitionOptions(languageHints: ["hi", "en"])) == EngineKey(models: ["Devanagari", "eng"]))
        // A Latin-script language other than English needs the Latin script model's letters.
        #expect(key(RecognitionOptions(languageHints: ["de"])) == EngineKey(models: ["Latin"]))
        #expect(key(RecognitionOptions(languageHints: ["ja", "ko"])) == EngineKey(models: ["jpn", "kor"]))
        #expect(
            key(RecognitionOptions(customWords: ["Zorvatek", "  Zorvatek "], languageCorrection: false))
                == EngineKey(models: ["eng"], customWords: ["Zorvatek"], languageCorrection: false))
    }

    @Test func badOptionsAreRefusedWithTheirCode() {
        let cases: [(RecognitionOptions, LegibleError.Code, String)] = [
            (RecognitionOptions(languageHints: ["xx"]), .invalidArgument, "unknown language hint 'xx'"),
            (RecognitionOptions(languageHints: ["zh-Hant"]), .failedPrecondition, "tesseract-ocr-script-hant"),
            (RecognitionOptions(scripts: [.known(.japanese)]), .failedPrecondition, "tesseract-ocr-jpn"),
            (RecognitionOptions(maxCandidates: 11), .invalidArgument, "max_candidates"),
            (RecognitionOptions(minimumTextHeight: 1.5), .invalidArgument, "minimum_text_height"),
            (RecognitionOptions(customWords: ["two words"]), .invalidArgument, "custom word"),
            // Strings measured by their bytes before their characters are walked.
            (
                RecognitionOptions(languageHints: [String(repeating: "e", count: 100_000)]), .invalidArgument,
                "has 100000 bytes"
            ),
            (
                RecognitionOptions(customWords: [" " + String(repeating: "w", count: 100_000) + " "]), .invalidArgument,
                "is not one word of at most 100 bytes"
            ),
            // Each list one over its bound, as decoding leaves a longer one.
            (
                RecognitionOptions(scripts: Array(repeating: .known(.latin), count: RecognitionOptions.maxScripts + 1)),
                .invalidArgument, "more than 16 scripts"
            ),
            (
                RecognitionOptions(
                    languageHints: Array(repeating: "en", count: RecognitionOptions.maxLanguageHints + 1)),
                .invalidArgument, "more than 64 language hints"
            ),
            (
                RecognitionOptions(
                    customWords: (0...RecognitionOptions.maxCustomWords).map { "w\($0)" }),
                .invalidArgument, "more than 1000 custom words"
            ),
        ]
        for (options, code, fragment) in cases {
            var machine = SessionStateMachine(configuration: configuration)
            guard case .send(.error(let error)) = machine.receive(.start(StartSession(options: options))).first else {
                Issue.record("\(options) was accepted")
                continue
            }
            #expect(error.code == code.rawValue && error.fatal, "\(options)")
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    /// The bounds leave room for every script and a language hint of each of Tesseract's Latin
    /// languages.
    @Test func listsWithinTheirBoundsAreTaken() {
        var machine = SessionStateMachine(configuration: configuration)
        let options = RecognitionOptions(
            scripts: Array(repeating: .known(.latin), count: RecognitionOptions.maxScripts),
            languageHints: Array(repeating: "en", count: RecognitionOptions.maxLanguageHints),
            customWords: (0..<RecognitionOptions.maxCustomWords).map { "w\($0)" })
        let actions = machine.receive(.start(StartSession(options: options)))
        guard case .register = actions.first, case .send(.started) = actions.last else {
            return #expect(Bool(false), "\(actions)")
        }
    }

    @Test func updateChangesTheSettingsFromTheNextFrameAndABadOneIsRefusedAlone() {
        let both = SessionConfiguration(
            sessionID: "s", serverVersion: "t", limits: configuration.limits, availableScripts: [.latin, .devanagari],
            installedModels: ["eng", "Devanagari"])
        var machine = SessionStateMachine(configuration: both)
        _ = machine.receive(.start(StartSession()))
        let actions = machine.receive(
            .update(UpdateSession(options: RecognitionOptions(scripts: [.known(.devanagari)]))))
        guard case .update(let settings) = actions.first else { return #expect(Bool(false), "\(actions)") }
        #expect(settings.engineKey == EngineKey(models: ["Devanagari"]))
        guard case .submit(_, let used) = machine.receive(.frame(jpeg(1))).first else { return #expect(Bool(false)) }
        #expect(used.engineKey == settings.engineKey)
        let refused = machine.receive(.update(UpdateSession(options: RecognitionOptions(languageHints: ["xx"]))))
        guard case .send(.error(let error)) = refused.first else { return #expect(Bool(false)) }
        #expect(!error.fatal && error.code == LegibleError.Code.invalidArgument.rawValue)
        #expect(!machine.isClosed)
        // The same options again change nothing.
        #expect(
            machine.receive(.update(UpdateSession(options: RecognitionOptions(scripts: [.known(.devanagari)])))) == [])
    }

    @Test func pingIsAnswered() {
        var machine = started()
        #expect(machine.receive(.ping(nonce: 9)) == [.send(.pong(nonce: 9))])
    }
}
