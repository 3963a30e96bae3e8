public import LegibleWire

/// Decides whether a decoded frame is worth reading, from how much its luma thumbnail differs
/// from the last recognized frame's and from the previous frame's. Pure state: the caller
/// passes the measures and the time.
///
/// A camera pointed at the same label sends the same picture thirty times a second; reading
/// each costs an engine ~100 ms and gives the same text. So:
///
/// - **unchanged**: a frame whose `sceneDifference` (against the last *recognized* frame) is
///   below `Thresholds.unchanged` is skipped and carries the last text, unless the session set
///   `recognize_unchanged`. Measuring against the last recognized frame, not the previous one,
///   lets a slow pan add up until it is re-read.
/// - **moving** (`wait_for_steady` only): once `motion` (against the previous frame) rises
///   above `Thresholds.moving` the camera counts as moving, and frames are skipped until
///   motion falls below the lower `Thresholds.settled`. Two thresholds, so that a camera
///   slowing down near one threshold does not flip between reading and skipping every frame.
/// - **anti-starvation**: after `maxUnchangedSkips` consecutive unchanged skips, or when
///   `maxUnchangedInterval` has passed since the last recognition, an unchanged frame is read
///   anyway. A 32×18 thumbnail cannot see everything that matters: a price digit changing on a
///   display moves its 40×40 cell by a few levels and the frame's mean difference by a few
///   hundredths, far under any noise threshold. The limit bounds how stale such text can get.
///   Moving skips have no limit: `motion` is measured afresh every frame, so they end exactly
///   when the camera settles, and the client asked for them.
///
/// ```
///             motion > moving                      (skip .moving while waitForSteady)
///   steady ───────────────────────▶ moving ──┐
///     ▲                                │  ◀──┘ motion ≥ settled
///     └──────── motion < settled ──────┘
/// ```
public struct SkipPolicy: Sendable, Codable {
    /// The policy's limits; `calibrated` holds the measured defaults.
    public struct Thresholds: Sendable, Hashable, Codable {
        /// A frame whose scene difference is below this is unchanged.
        public var unchanged: Float
        /// Motion above this starts a moving phase.
        public var moving: Float
        /// Motion below this ends a moving phase (≤ `moving`).
        public var settled: Float
        /// Consecutive unchanged skips after which a frame is read anyway.
        public var maxUnchangedSkips: Int
        /// Time since the last recognition after which an unchanged frame is read anyway.
        public var maxUnchangedInterval: Duration

        public init(
            unchanged: Float, moving: Float, settled: Float, maxUnchangedSkips: Int, maxUnchangedInterval: Duration
        ) {
            precondition(settled <= moving, "the settle threshold must not exceed the moving threshold")
            self.unchanged = unchanged
            self.moving = moving
            self.settled = settled
            self.maxUnchangedSkips = maxUnchangedSkips
            self.maxUnchangedInterval = maxUnchangedInterval
        }

        /// The defaults, measured on generated camera sequences by
        /// `Tests/LegibleImagingTests/SceneChangeCalibrationTests.swift`, which prints this
        /// table (`LumaThumbnail.difference`, 0…255; 1280×720, σ = 4 noise on every frame;
        /// scene against the sequence's first frame, motion against the frame before):
        ///
        /// ```
        ///                                  camera-720p.jpg         label-640x480.jpg, letterboxed
        ///                                  scene max   motion      scene max   motion
        /// a static                         0.12        0.11-0.11   0.12        0.11-0.12
        /// b jitter 1-3 px each axis        0.93        0.29-1.62   1.26        0.86-2.28
        /// c exposure ±10 %                 0.35        0.18-0.32   0.88        0.16-0.92
        /// d pan 5 px/frame, x | y          —           0.63-0.76 | 1.10-1.63   1.07-1.37 | 1.09-1.51
        ///     scene after 5, 10, 25 px x   0.65 0.92 1.65          1.35 2.52 3.98
        /// e pan x 40 px/frame, blur 20     —           2.01-2.11*  —           4.12-4.60
        /// e pan y 25 px/frame, blur 12     —           5.55-6.07   —           5.11-5.63
        /// e shake y 26-60 px, blur         —           6.50-8.02   —           6.67-10.14
        /// f cut to the label | to blank    12.52 | 7.69
        /// ```
        ///
        /// - `unchanged` 1.5: above every same-scene frame (1.26 at worst, a 3 px diagonal
        ///   jitter on the sharper label); a slow pan passes it after 10 px (across the text
        ///   lines, or on the label) to 25 px (the camera scene, along its lines); a cut is far
        ///   above (≥ 7.7). Denser scenes than these two have larger differences for the same
        ///   shake, so they are read more often, never less.
        /// - `settled` 2.7: above the motion of a hand-held camera (≤ 2.28: jitter of up to
        ///   6 px between frames) and of a slow pan (≤ 1.63), so those end a moving phase.
        /// - `moving` 3.6: below every fast motion except *: a pan along the camera scene's
        ///   wide text lines changes a 32×18 thumbnail little but at their ends (2.1). That
        ///   blind spot costs a read of a blurred frame, not a missed one.
        /// - `maxUnchangedSkips` 30 and `maxUnchangedInterval` 2 s: at 30 fps a changed
        ///   digit on a display that the thumbnail cannot see is read within a second; at
        ///   lower frame rates within two.
        public static let calibrated = Thresholds(
            unchanged: 1.5, moving: 3.6, settled: 2.7, maxUnchangedSkips: 30, maxUnchangedInterval: .seconds(2))
    }

    /// What to do with a frame.
    public enum Decision: Sendable, Hashable, Codable {
        case recognize
        case skip(SkipReason)
    }

    public let thresholds: Thresholds
    /// In a moving phase (tracked whether or not the session waits for steady, so that turning
    /// `wait_for_steady` on mid-stream takes effect at once).
    public private(set) var isMoving = false
    /// Unchanged skips since the last recognition.
    public private(set) var consecutiveUnchangedSkips = 0
    private var lastRecognition: Duration?

    public init(thresholds: Thresholds = .calibrated) {
        self.thresholds = thresholds
    }

    /// Decides for one decoded frame and records the decision.
    ///
    /// - Parameters:
    ///   - sceneDifference: the thumbnail difference from the last recognized frame; nil when
    ///     none was recognized yet (the frame is read).
    ///   - motion: the difference from the previous frame decoded; nil for the first.
    ///   - recognizeUnchanged: the session's `recognize_unchanged`.
    ///   - waitForSteady: the session's `wait_for_steady`.
    ///   - now: the time on any monotonic timeline the caller keeps (e.g. since the session
    ///     started); only differences are used.
    /// - Returns: `.recognize` (the caller reads the frame and makes its thumbnail the new
    ///   reference) or `.skip` with the reason to answer.
    public mutating func decide(
        sceneDifference: Float?, motion: Float?, recognizeUnchanged: Bool, waitForSteady: Bool, now: Duration
    ) -> Decision {
        if let motion {
            if isMoving {
                if motion < thresholds.settled { isMoving = false }
            } else if motion > thresholds.moving {
                isMoving = true
            }
        }
        if waitForSteady && isMoving { return .skip(.moving) }
        if !recognizeUnchanged, let sceneDifference, sceneDifference < thresholds.unchanged, !isStarving(now: now) {
            consecutiveUnchangedSkips += 1
            return .skip(.unchanged)
        }
        consecutiveUnchangedSkips = 0
        lastRecognition = now
        return .recognize
    }

    /// Forgets the moving phase and the skip count (a new scene or new options).
    public mutating func reset() {
        isMoving = false
        consecutiveUnchangedSkips = 0
        lastRecognition = nil
    }

    private func isStarving(now: Duration) -> Bool {
        if consecutiveUnchangedSkips >= thresholds.maxUnchangedSkips { return true }
        guard let lastRecognition else { return false }
        return now - lastRecognition >= thresholds.maxUnchangedInterval
    }
}
