internal import CTesseract
internal import Glibc
public import LegibleCore

/// Tesseract's orientation and script detection (OSD) on its own handle and model.
///
/// OSD reads `osd.traineddata` (Debian's tesseract-ocr-osd), a legacy-engine model, so it
/// needs a handle of its own initialised with OEM_TESSERACT_ONLY beside the LSTM recognizer.
/// Owns that `TessBaseAPI`, freed in `deinit`; not `Sendable`: one thread only.
public final class OrientationDetector {
    /// What OSD found.
    public struct Detection: Sendable, Hashable {
        /// The clockwise turn that makes the image upright: 0, 90, 180 or 270.
        public var clockwiseCorrection: Int
        /// Tesseract's orientation confidence (unbounded above; ~5 on a 720p frame of four
        /// lines, measured).
        public var confidence: Float
        /// The script OSD found (its names: `Latin`, `Han`, `Japanese`, `Katakana`,
        /// `Hiragana`, `Hangul`, `Devanagari`, `Cyrillic`, …), and its confidence.
        public var script: String? = nil
        public var scriptConfidence: Float = 0

        /// Legible's script for OSD's `script` among `candidates`; nil when none reads it.
        /// `Han` is Chinese when Chinese is a candidate, else Japanese.
        public func script(among candidates: [Script]) -> Script? {
            let found: [Script]
            switch script {
            case "Latin": found = [.latin]
            case "Han": found = [.chinese, .japanese]
            case "Japanese", "Katakana", "Hiragana": found = [.japanese]
            case "Hangul", "Korean": found = [.korean]
            case "Devanagari": found = [.devanagari]
            default: found = []
            }
            return found.first(where: candidates.contains)
        }
    }

    private let api: OpaquePointer

    /// - Throws: `.failedPrecondition` when osd.traineddata is missing, naming the package.
    public init(tessdata: String) throws(LegibleError) {
        let path = tessdata.hasSuffix("/") ? "\(tessdata)osd.traineddata" : "\(tessdata)/osd.traineddata"
        guard access(path, R_OK) == 0 else {
            throw LegibleError(
                .failedPrecondition,
                "auto_orientation needs Tesseract's OSD model, which is not installed: install the Debian package tesseract-ocr-osd"
            )
        }
        guard let api = TessBaseAPICreate() else { throw LegibleError(.internal, "TessBaseAPICreate failed") }
        self.api = api
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        if TessBaseAPIInit2(api, tessdata, "osd", OEM_TESSERACT_ONLY) != 0 {
            throw LegibleError(.failedPrecondition, "Tesseract cannot load its OSD model; reinstall tesseract-ocr-osd")
        }
        TessBaseAPISetPageSegMode(api, PSM_OSD_ONLY)
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// Detects which way up `image` is; nil when OSD finds too little text to say.
    public func detect(_ image: GrayImage) -> Detection? {
        guard image.width >= 8, image.height >= 8 else { return nil }
        defer { TessBaseAPIClear(api) }
        var degrees: Int32 = 0
        var confidence: Float = 0
        var scriptName: UnsafePointer<CChar>? = nil
        var scriptConfidence: Float = 0
        let found = image.pixels.withUnsafeBufferPointer { pixels in
            TessBaseAPISetImage(
                api, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.bytesPerRow))
            return TessBaseAPIDetectOrientationScript(api, &degrees, &confidence, &scriptName, &scriptConfidence)
        }
        guard found != 0 else { return nil }
        // Tesseract reports how far the page is turned clockwise; undoing it is the rest of
        // the full turn (measured: a frame turned 90 degrees clockwise reads orient_deg 90).
        let correction = (360 - Int(degrees) % 360) % 360
        return Detection(
            clockwiseCorrection: correction, confidence: confidence, script: scriptName.map { String(cString: $0) },
            scriptConfidence: scriptConfidence)
    }
}

@available(*, unavailable, message: "a Tesseract handle belongs to one thread")
extension OrientationDetector: Sendable {}
