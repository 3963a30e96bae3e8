internal import Glibc
public import LegibleCore

/// A recognizer that answers every image after exactly `delay`, with one fixed line: for
/// checking load tools against known arithmetic (`legibled --calibration-delay-ms`), and the
/// fake engine of server tests. It decodes nothing itself (the pipeline still decodes, orients
/// and crops as usual). Cancels and deadlines are honoured within 5 ms.
public final class CalibrationRecognizer: Recognizer {
    public let key: EngineKey
    public let cancellation: RecognitionCancellation
    public let delay: Duration

    public init(key: EngineKey, delay: Duration, cancellation: RecognitionCancellation) {
        self.key = key
        self.delay = delay
        self.cancellation = cancellation
    }

    public func recognize(_ image: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError)
        -> RecognizedText
    {
        cancellation.begin(job)
        let clock = ContinuousClock()
        let start = clock.now
        let end = start + delay
        // Sleep in slices so that a cancel or a deadline is honoured as Tesseract's monitor would.
        while clock.now < end {
            if cancellation.isCancelled { throw LegibleError(.cancelled, "the recognition was cancelled") }
            if let deadline, clock.now - start >= deadline {
                throw LegibleError(.deadlineExceeded, "the recognition was stopped at its deadline")
            }
            let left = end - clock.now
            let slice = min(left, .milliseconds(5))
            usleep(
                UInt32(max(1, slice.components.attoseconds / 1_000_000_000_000 + slice.components.seconds * 1_000_000)))
        }
        let frame = Rect(x: 0, y: 0, width: Int32(min(image.width, 100)), height: Int32(min(image.height, 20)))
        let word = TextElement(text: "calibration", frame: frame, confidence: 1, recognizedLanguages: ["en"])
        let line = TextLine(
            text: "calibration", frame: frame, confidence: 1, recognizedLanguages: ["en"], elements: [word])
        let block = TextBlock(
            text: "calibration", frame: frame, confidence: 1, recognizedLanguages: ["en"], lines: [line])
        return RecognizedText(text: "calibration", blocks: [block], imageWidth: image.width, imageHeight: image.height)
    }
}
