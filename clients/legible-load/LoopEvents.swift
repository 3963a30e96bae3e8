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

/// A one-shot timer on the event loop that fires at an absolute CLOCK_MONOTONIC time (a
/// timerfd with TFD_TIMER_ABSTIME), re-armed by its owner after each firing. Absolute times
/// keep the schedule exact: a late wake-up does not push later frames back.
final class DeadlineTimer: EventHandler {
    let descriptor: Int32
    private let loop: EventLoop
    private let fire: () -> Void

    /// Creates the timer, disarmed; on the loop thread only.
    init(loop: EventLoop, fire: @escaping () -> Void) throws(LegibleError) {
        descriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        guard descriptor >= 0 else { throw .system("timerfd_create") }
        self.loop = loop
        self.fire = fire
        try loop.register(descriptor, handler: self)
    }

    deinit { close(descriptor) }

    /// Fires once at `time` (at once if it has passed).
    func arm(at time: Nanoseconds) {
        // An it_value of zero would disarm the timer: a time in the past is at least 1 ns.
        let target = max(time, 1)
        var spec = itimerspec(
            it_interval: timespec(tv_sec: 0, tv_nsec: 0),
            it_value: timespec(tv_sec: Int(target / nanosecondsPerSecond), tv_nsec: Int(target % nanosecondsPerSecond)))
        timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    func cancel() { loop.unregister(descriptor) }

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        var expirations: UInt64 = 0
        guard read(descriptor, &expirations, 8) == 8 else { return }
        fire()
    }
}
