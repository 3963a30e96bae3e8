public import LegibleCore
public import LegibleDetection

/// PP-OCRv4's detector (OpenVINO) is a line detector as it is; ACCURATE gives it a larger
/// input (`Options.accurateMaxSide`).
extension TextDetector: LineDetecting {
    public func detectLines(in image: GrayImage, level: RecognitionLevel, scalesUp: Bool) throws(LegibleError)
        -> [DetectedLine]
    {
        try detect(image, maxSide: level == .accurate ? options.accurateMaxSide : options.maxSide, scalesUp: scalesUp)
    }
}
