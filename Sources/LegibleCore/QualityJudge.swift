/// Turns a frame's measured numbers into hints, by thresholds a camera app can rely on.
///
/// The text-size floors are ML Kit's published guidance (16 px per character for Latin-like
/// scripts, 24 px for Chinese, Japanese and Korean). The others were calibrated on
/// scripts/camera_frames.py's frames (see the README's table).
public struct QualityThresholds: Sendable, Hashable {
    public var minimumTextHeight: Float
    public var minimumCJKTextHeight: Float
    /// Normalised Laplacian variance below which a frame is BLURRY. The generated 720p scene
    /// measures 80 clean, 29 / 15 / 8.9 / 3.5 / 2.0 after a Gaussian blur of σ 1 / 1.5 / 2 / 3 / 4.
    public var minimumSharpness: Float
    /// Mean gray below which a frame is TOO_DARK (clean scene 205, darkened 25).
    public var minimumBrightness: Float
    /// 1–99 percentile spread below which a frame has LOW_CONTRAST (clean scene 173, tiny
    /// text 42, squeezed into 24 levels 18, darkened to mean 25: 21).
    public var minimumContrast: Float

    public init(
        minimumTextHeight: Float = 16, minimumCJKTextHeight: Float = 24, minimumSharpness: Float = 12,
        minimumBrightness: Float = 50, minimumContrast: Float = 30
    ) {
        self.minimumTextHeight = minimumTextHeight
        self.minimumCJKTextHeight = minimumCJKTextHeight
        self.minimumSharpness = minimumSharpness
        self.minimumBrightness = minimumBrightness
        self.minimumContrast = minimumContrast
    }

    /// The frame's quality record: the numbers and the hints they fire.
    public func judge(_ measured: ImageQuality, medianTextHeight: Float, script: Script) -> FrameQuality {
        var hints: [QualityHint] = []
        let floor: Float
        switch script {
        case .chinese, .japanese, .korean: floor = minimumCJKTextHeight
        case .latin, .devanagari: floor = minimumTextHeight
        }
        // No words at all says nothing about their size.
        if medianTextHeight > 0, medianTextHeight < floor { hints.append(.textTooSmall) }
        if measured.sharpness < minimumSharpness { hints.append(.blurry) }
        if measured.brightness < minimumBrightness { hints.append(.tooDark) }
        if measured.contrast < minimumContrast { hints.append(.lowContrast) }
        return FrameQuality(
            sharpness: measured.sharpness, brightness: measured.brightness, contrast: measured.contrast,
            medianTextHeight: medianTextHeight, hints: hints)
    }

    /// The median height of the words' boxes, in full-image pixels.
    public static func medianWordHeight(_ text: RecognizedText) -> Float {
        let heights = text.words.map { $0.frame.height }.filter { $0 > 0 }.sorted()
        guard !heights.isEmpty else { return 0 }
        let middle = heights.count / 2
        return heights.count % 2 == 1
            ? Float(heights[middle]) : Float(heights[middle - 1] + heights[middle]) / 2
    }
}
