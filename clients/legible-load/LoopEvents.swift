internal import CLinux
internal import Glibc
internal import LegibleCore
internal import LegibleLoadCore
internal import LegibleSockets

/// CLOCK_MONOTONIC in nanoseconds: the clock the schedule, the timerfd and every timestamp
/// of a run share (Swift's `ContinuousClock` may be CLOCK_BOOTTIME; mixing clocks would skew
/// latencies by the time the machine slept).
enum Monotonic {
    static func now() -> Nanoseconds {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Nanoseconds(time.tv_sec) * nanosecondsPerSecond + Nanoseconds(time.tv_nsec)
    }
}

extension OneShotTimer {
    /// Fires once at `time` of CLOCK_MONOTONIC (`Monotonic.now()`'s clock), at once if it has
    /// passed: absolute times keep the schedule exact, a late wake-up does not push later frames
    /// back.
    func arm(at time: Nanoseconds) { arm(atMonotonicNanoseconds: time) }
}
