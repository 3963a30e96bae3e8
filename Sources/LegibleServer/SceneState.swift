internal import LegibleCore
internal import LegibleImaging
internal import LegibleSessions
internal import LegibleWire

/// What an engine needs from a session's past to treat its next frame: the thumbnails to
/// compare against, the skip policy's state, and the scene's text size. Taken on the loop
/// thread when the frame is dispatched (the session's previous frame has been answered by
/// then), carried to the engine thread, and handed back updated with the outcome.
struct SceneSnapshot: Sendable {
    /// The last recognized frame's thumbnail.
    var reference: LumaThumbnail?
    /// The previous frame's thumbnail (read or skipped).
    var previous: LumaThumbnail?
    var policy: SkipPolicy
    /// Median word height in upright full-image pixels of the last recognized frame.
    var textHeight: Double?
    /// Time since the server started, for the policy's anti-starvation limit.
    var now: Duration
}

/// What a session's results so far say about the frames to come, and the session's own steps
/// after an engine: the line tracker (track ids, stable counts, changes) and the skip policy.
/// Lives with the connection, on the loop thread.
struct SceneState {
    private var reference: LumaThumbnail?
    private var previous: LumaThumbnail?
    private var policy = SkipPolicy()
    private var tracker = LineTracker()
    private var textHeight: Double?

    /// A scene differing from the last recognized one by more than this is a new scene: its
    /// text size says nothing about this one (calibration: a cut measures 7.7 or more, the
    /// fastest pans 2-6).
    static let sceneCut: Float = 7.0

    func snapshot(now: Duration) -> SceneSnapshot {
        SceneSnapshot(reference: reference, previous: previous, policy: policy, textHeight: textHeight, now: now)
    }

    /// An engine read a frame: ids and stability assigned, the references moved on.
    mutating func recognized(_ text: inout RecognizedText, scene: FrameOutcome.Scene, stableAfter: Int) -> (
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
    mutating func skipped(_ reason: SkipReason, scene: FrameOutcome.Scene, stableAfter: Int) -> (RecognizedText?, Bool)
    {
        adopt(scene)
        let text = reason == .unchanged ? tracker.carryForward() : tracker.lastText
        return (text, tracker.isStable(after: stableAfter))
    }

    private mutating func adopt(_ scene: FrameOutcome.Scene) {
        policy = scene.policy
        previous = scene.thumbnail ?? previous
    }
}
