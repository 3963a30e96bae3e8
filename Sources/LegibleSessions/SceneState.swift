public import LegibleCore
internal import LegibleWire

/// What an engine saw of a frame's scene: its thumbnail and the session's skip policy after
/// it, for the session to keep, and how far it moved.
public struct SceneObservation: Sendable, Codable {
    public var thumbnail: LumaThumbnail?
    public var policy: SkipPolicy
    /// Thumbnail difference from the last recognized frame (0 when there was none).
    public var sceneDifference: Float
    /// Thumbnail difference from the previous frame (0 when there was none).
    public var motion: Float

    /// A scene differing from the last recognized one by more than this is a new scene: its
    /// text size says nothing about this one (calibration: a cut measures 7.7 or more, the
    /// fastest pans 2-6).
    public static let sceneCut: Float = 7.0

    public init(thumbnail: LumaThumbnail?, policy: SkipPolicy, sceneDifference: Float, motion: Float) {
        self.thumbnail = thumbnail
        self.policy = policy
        self.sceneDifference = sceneDifference
        self.motion = motion
    }
}

/// What an engine needs from a session's past to treat its next frame: the thumbnails to
/// compare against, the skip policy's state, and the scene's text size. Taken when the frame
/// is dispatched (the session's previous frame has been answered by then), carried to the
/// engine thread, and handed back updated with the answer (`SceneObservation`).
public struct SceneSnapshot: Sendable, Codable {
    /// The last recognized frame's thumbnail.
    public var reference: LumaThumbnail?
    /// The previous frame's thumbnail (read or skipped).
    public var previous: LumaThumbnail?
    public var policy: SkipPolicy
    /// Median word height in upright full-image pixels of the last recognized frame.
    public var textHeight: Double?
    /// Time since the server started, for the policy's anti-starvation limit.
    public var now: Duration

    public init(
        reference: LumaThumbnail? = nil, previous: LumaThumbnail? = nil, policy: SkipPolicy = SkipPolicy(),
        textHeight: Double? = nil, now: Duration
    ) {
        self.reference = reference
        self.previous = previous
        self.policy = policy
        self.textHeight = textHeight
        self.now = now
    }
}

/// What a session's results so far say about the frames to come, and the session's own steps
/// after an engine: the line tracker (track ids, stable counts, changes) and the skip policy.
struct SceneState {
    private var reference: LumaThumbnail?
    private var previous: LumaThumbnail?
    private var policy = SkipPolicy()
    private var tracker = LineTracker()
    private var textHeight: Double?

    func snapshot(now: Duration) -> SceneSnapshot {
        SceneSnapshot(reference: reference, previous: previous, policy: policy, textHeight: textHeight, now: now)
    }

    /// An engine read a frame: ids and stability assigned, the references moved on.
    mutating func recognized(_ text: inout RecognizedText, scene: SceneObservation, stableAfter: Int) -> (
        Changes, Bool
    ) {
        adopt(scene)
        reference = scene.thumbnail ?? reference
        let height = QualityThresholds.medianWordHeight(text)
        textHeight = height > 0 ? Double(height) : nil
        let changes = tracker.track(&text)
        return (changes, tracker.isStable(after: stableAfter))
    }

    /// An engine skipped a frame: an unchanged one carries the last text with its lines held
    /// one result longer; a moving one carries it as it was.
    mutating func skipped(_ reason: SkipReason, scene: SceneObservation, stableAfter: Int) -> (RecognizedText?, Bool) {
        adopt(scene)
        let text = reason == .unchanged ? tracker.carryForward() : tracker.lastText
        return (text, tracker.isStable(after: stableAfter))
    }

    private mutating func adopt(_ scene: SceneObservation) {
        policy = scene.policy
        previous = scene.thumbnail ?? previous
    }
}
