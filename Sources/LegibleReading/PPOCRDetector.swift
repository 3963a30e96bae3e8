public import LegibleCore
public import LegibleDetection

/// PP-OCRv4's detector (OpenVINO) is a line detector as it is.
extension TextDetector: LineDetecting {
    public func detectLines(in image: GrayImage) throws(LegibleError) -> [DetectedLine] {
        try detect(image)
    }
}
