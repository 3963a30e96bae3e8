import LegibleCore
import LegibleEngine
import LegibleReading
import LegibleServer
import LegibleTesseract
import Testing

/// What legibled's engines read with on its defaults: the stack `PipelineFactory.makeRecognizer`
/// builds, which `legible-floor` (the benchmarks' floor) reads with too.
@Suite("Recognizer stack")
struct RecognizerStackTests {
    static func stack(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> any Recognizer {
        var configuration = ServerConfiguration()
        configure(&configuration)
        return try PipelineFactory(settings: configuration.pipelineSettings).makeRecognizer(
            for: EngineKey(models: ["eng"]), cancellation: RecognitionCancellation())
    }

    @Test func theDefaultLatinLinesAreReadByTesseractWithASecondReaderCheckingAccents() throws {
        let defaults = ServerConfiguration()
        let recognizer = try #require(try Self.stack() as? SecondOpinionRecognizer)
        #expect(recognizer.base is TesseractEngine)
        #expect(recognizer.second is PPOCRLineRecognizer)
        #expect(recognizer.checksAccents)
        #expect(recognizer.secondReadingThreshold(at: .fast) == defaults.fastSecondOpinionBelow)
        #expect(recognizer.secondReadingThreshold(at: .accurate) == defaults.secondOpinionBelow)
    }

    @Test func withoutTheDetectorFramesAreTesseractsAlone() throws {
        #expect(try Self.stack { $0.detector = .tesseract } is TesseractEngine)
    }

    @Test func withoutSecondReadingsTheLinesAreTesseractsAlone() throws {
        let recognizer = try Self.stack {
            $0.secondOpinionBelow = 0
            $0.fastSecondOpinionBelow = 0
        }
        #expect(recognizer is TesseractEngine)
    }
}
