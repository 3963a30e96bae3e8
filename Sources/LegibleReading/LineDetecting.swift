public import LegibleCore

/// Finds the text lines of an upright gray image: the PP-OCRv4 detector, or a fake in tests.
///
/// Like a recognizer, a detector holds a native handle used by one thread: implementations
/// are not `Sendable` and live on their engine's thread.
public protocol LineDetecting: AnyObject {
    /// The lines found, each a rotated box in `image`'s pixels with the detector's score.
    func detectLines(in image: GrayImage) throws(LegibleError) -> [DetectedLine]
}
