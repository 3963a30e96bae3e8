/// Advice a camera app can pass on to its user (`legible.v1.QualityHint`).
public enum QualityHint: Int, Sendable, Hashable, CaseIterable, Comparable, Codable {
    /// The words read are small: move closer.
    case textTooSmall = 1
    /// Little fine detail: hold still or refocus.
    case blurry = 2
    /// Low mean gray level: add light.
    case tooDark = 3
    /// Narrow gray range: add light, avoid glare.
    case lowContrast = 4

    public static func < (a: QualityHint, b: QualityHint) -> Bool { a.rawValue < b.rawValue }
}

/// The measured numbers behind the hints (`legible.v1.QualityHints`), taken on the upright
/// image inside the region of interest.
public struct FrameQuality: Sendable, Hashable, Codable {
    /// Variance of the 3x3 Laplacian of the luma × 10⁴ / contrast²; higher is sharper.
    public var sharpness: Float
    /// Mean gray level, 0…255.
    public var brightness: Float
    /// Gray range between the 1st and 99th percentiles, 0…255.
    public var contrast: Float
    /// Median height in pixels of the recognized words' boxes; 0 when none.
    public var medianTextHeight: Float
    /// The hints that fired, in enum order.
    public var hints: [QualityHint]

    public init(
        sharpness: Float = 0, brightness: Float = 0, contrast: Float = 0, medianTextHeight: Float = 0,
        hints: [QualityHint] = []
    ) {
        self.sharpness = sharpness
        self.brightness = brightness
        self.contrast = contrast
        self.medianTextHeight = medianTextHeight
        self.hints = hints
    }
}
