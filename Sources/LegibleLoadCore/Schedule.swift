/// Nanoseconds, as a plain integer: schedule times are offsets from the run's start (t0), and
/// plain integers keep the arithmetic exact and the tests free of clocks.
public typealias Nanoseconds = Int64

public let nanosecondsPerSecond: Nanoseconds = 1_000_000_000

/// When every frame of a load run is due: the open-loop schedule.
///
/// Session `k` of `N` starts at `k × rampUp / N`; its frame `i` is due at `start(k) + i / fps`,
/// whatever happened to its earlier frames (open loop: a slow answer never delays a send, so
/// the harness measures the server, not its own patience). Each session sends every frame due
/// in `[start(k), start(k) + duration)`, that is `ceil(duration × fps)` frames, so the total is
/// `sessions × fps × duration` when that product is whole, however long the ramp.
///
/// `maxFrames` keeps only the earliest frames overall (ties by session index): the run is
/// bounded in count as well as in time.
public struct OpenLoopSchedule: Sendable, Hashable {
    public let sessions: Int
    public let framesPerSecond: Double
    public let duration: Nanoseconds
    public let rampUp: Nanoseconds
    public let maxFrames: Int?

    public init(
        sessions: Int, framesPerSecond: Double, duration: Nanoseconds, rampUp: Nanoseconds, maxFrames: Int? = nil
    ) {
        precondition(sessions > 0 && framesPerSecond > 0 && duration > 0 && rampUp >= 0)
        precondition(maxFrames.map { $0 >= 0 } ?? true)
        self.sessions = sessions
        self.framesPerSecond = framesPerSecond
        self.duration = duration
        self.rampUp = rampUp
        self.maxFrames = maxFrames
    }

    /// The default ramp: one frame interval, so that sessions are spread evenly over a frame
    /// period instead of sending in lockstep (N frames in the same microsecond is a burst no
    /// fleet of independent cameras produces).
    public static func defaultRampUp(framesPerSecond: Double) -> Nanoseconds {
        Nanoseconds((Double(nanosecondsPerSecond) / framesPerSecond).rounded())
    }

    /// Frames each session sends before `maxFrames` applies: how many `i ≥ 0` have
    /// `i / fps < duration`. A product within 1e-9 of a whole number counts as that number,
    /// so that 3 s × 5 fps is 15 frames and not 16 through rounding noise.
    public var framesPerSession: Int {
        let product = Double(duration) / Double(nanosecondsPerSecond) * framesPerSecond
        let nearest = product.rounded()
        return Int(abs(product - nearest) < 1e-9 ? nearest : product.rounded(.up))
    }

    /// Every frame the run schedules.
    public var totalFrames: Int {
        let all = sessions * framesPerSession
        return maxFrames.map { min($0, all) } ?? all
    }

    /// When session `k` sends its first frame.
    public func start(ofSession k: Int) -> Nanoseconds {
        precondition(k >= 0 && k < sessions)
        // Multiply first: exact for any ramp below ~292 years / sessions.
        return rampUp * Nanoseconds(k) / Nanoseconds(sessions)
    }

    /// The offset of frame `i` from its session's start.
    public func offset(ofFrame i: Int) -> Nanoseconds {
        Nanoseconds((Double(i) * Double(nanosecondsPerSecond) / framesPerSecond).rounded())
    }

    /// When frame `i` of session `k` is due.
    public func sendTime(session k: Int, frame i: Int) -> Nanoseconds {
        start(ofSession: k) + offset(ofFrame: i)
    }

    /// The span in which frames are due: from t0 to the end of the last session's duration.
    public var window: Nanoseconds {
        start(ofSession: sessions - 1) + duration
    }

    /// The frames nominally requested per second once every session streams: sessions × fps.
    public var requestedRate: Double { Double(sessions) * framesPerSecond }

    /// Frames in due order.
    public func makeCursor() -> ScheduleCursor { ScheduleCursor(self) }
}

/// One due frame.
public struct ScheduledFrame: Sendable, Hashable {
    public var session: Int
    /// 0-based; the wire frame id is `index + 1`.
    public var index: Int
    public var time: Nanoseconds
    /// The session sends nothing after this one (its last frame, or `maxFrames` reached).
    ///
    /// When `maxFrames` is reached, only the session of the frame that reached it is told so
    /// here; the cursor is then exhausted and the caller ends every other session.
    public var isLastOfSession: Bool
}

/// Walks an `OpenLoopSchedule` in due order (ties by session index) with a binary heap over
/// the sessions' next frames: O(log N) per frame, and nothing allocated per frame, so a run of
/// a thousand sessions is cheap to drive from one thread.
public struct ScheduleCursor: Sendable, IteratorProtocol, Sequence {
    public let schedule: OpenLoopSchedule
    /// Min-heap of (time, session, frame index).
    private var heap: [(time: Nanoseconds, session: Int, index: Int)] = []
    public private(set) var emitted = 0

    init(_ schedule: OpenLoopSchedule) {
        self.schedule = schedule
        if schedule.framesPerSession > 0 && schedule.totalFrames > 0 {
            // Session starts increase with k, so the array is already a valid heap.
            heap = (0..<schedule.sessions).map { (schedule.start(ofSession: $0), $0, 0) }
        }
    }

    /// A cursor with nothing left: the schedule was cut short (an interrupted run).
    public static func exhausted(_ schedule: OpenLoopSchedule) -> ScheduleCursor {
        var cursor = ScheduleCursor(schedule)
        cursor.heap.removeAll()
        return cursor
    }

    /// Whether every frame has been handed out.
    public var isExhausted: Bool { heap.isEmpty }

    /// When the next frame is due; nil when none is left.
    public var nextTime: Nanoseconds? { heap.first?.time }

    public mutating func next() -> ScheduledFrame? {
        guard let top = heap.first else { return nil }
        emitted += 1
        let capReached = emitted >= schedule.totalFrames
        let last = top.index + 1 >= schedule.framesPerSession
        if capReached {
            heap.removeAll()
        } else if last {
            let tail = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = tail
                siftDown(0)
            }
        } else {
            heap[0] = (schedule.sendTime(session: top.session, frame: top.index + 1), top.session, top.index + 1)
            siftDown(0)
        }
        return ScheduledFrame(
            session: top.session, index: top.index, time: top.time, isLastOfSession: last || capReached)
    }

    /// Earlier time first; equal times by session index, so the order is deterministic.
    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].time != heap[b].time ? heap[a].time < heap[b].time : heap[a].session < heap[b].session
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && less(left, smallest) { smallest = left }
            if right < heap.count && less(right, smallest) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
