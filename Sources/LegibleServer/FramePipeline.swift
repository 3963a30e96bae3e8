internal import LegibleCore
internal import LegibleImaging
internal import LegibleTesseract
internal import LegibleWire

/// What an engine made of one frame; crosses back from the engine thread to the loop.
enum FrameOutcome: Sendable {
    case recognized(RecognizedText, decodeMicros: UInt32, recognizeMicros: UInt32)
    case failed(LegibleError)
}

/// decode → recognize for one engine, on that engine's own thread.
///
/// Owns the turbojpeg handle and the Tesseract handle, so it is not `Sendable`: it is created
/// by `EngineThread` on its thread and never leaves it.
final class FramePipeline {
    private let decoder: ImageDecoder
    private let recognizer: any Recognizer
    private let maxPixels: Int

    init(recognizer: any Recognizer, maxPixels: Int) throws(LegibleError) {
        self.decoder = try ImageDecoder()
        self.recognizer = recognizer
        self.maxPixels = maxPixels
    }

    func process(_ frame: Frame, request: RecognitionRequest) -> FrameOutcome {
        // The session validated the encoding and orientation before scheduling the frame.
        guard let encoding = frame.encoding?.known else {
            return .failed(LegibleError(.invalidArgument, "the frame's image has no known encoding"))
        }
        let clock = ContinuousClock()
        let start = clock.now
        do throws(LegibleError) {
            let image = try decoder.decode(
                EncodedImage(
                    encoding: encoding, data: frame.data, width: Int(frame.width), height: Int(frame.height),
                    stride: Int(frame.stride)),
                maxPixels: maxPixels)
            let decoded = clock.now
            var text = try recognizer.recognize(image, request: request)
            text.imageWidth = image.width
            text.imageHeight = image.height
            let recognized = clock.now
            return .recognized(text, decodeMicros: (decoded - start).micros, recognizeMicros: (recognized - decoded).micros)
        } catch {
            return .failed(error)
        }
    }
}

extension Duration {
    /// Whole microseconds, saturating at UInt32.max (71 minutes).
    var micros: UInt32 {
        let (seconds, attoseconds) = components
        let value = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return UInt32(clamping: max(0, value))
    }
}
