internal import LegibleCore

/// Time that moves only when a test says so: deterministic tests wait on events, never on
/// sleeps. Durations are time since the start, as `FrameScheduler` takes them.
public struct ManualClock: Sendable {
    public private(set) var now: Duration = .zero

    public init() {}

    public mutating func advance(by duration: Duration) {
        precondition(duration >= .zero, "time does not run backwards")
        now += duration
    }

    public mutating func advance(to instant: Duration) {
        precondition(instant >= now, "time does not run backwards")
        now = instant
    }
}

/// A `ManualClock` shared between a test and the server it drives (the server reads it on its
/// loop's thread; the test moves it on its own).
public final class SharedManualClock: Sendable {
    private let clock = Locked(ManualClock())

    public init() {}

    public var now: Duration { clock.withLock { $0.now } }

    public func advance(by duration: Duration) { clock.withLock { $0.advance(by: duration) } }
}
