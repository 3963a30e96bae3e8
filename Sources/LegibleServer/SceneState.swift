internal import LegibleCore
internal import LegibleImaging

/// What a session's results so far say about the frames to come: the scene's text size (for
/// FAST's shrinking). Lives with the connection, on the loop thread.
struct SceneState {
    /// Median word height in upright full-image pixels of the last recognized frame; nil when
    /// it had no words.
    private(set) var textHeightHint: Double?

    mutating func recognized(_ text: RecognizedText) {
        let height = QualityThresholds.medianWordHeight(text)
        textHeightHint = height > 0 ? Double(height) : nil
    }
}
