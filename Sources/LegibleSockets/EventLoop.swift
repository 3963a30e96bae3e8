internal import CLinux
internal import Glibc
public import LegibleCore

/// Something registered with the event loop for readiness events on its descriptor.
public protocol EventHandler: AnyObject {
    func handleEvents(readable: Bool, writable: Bool, hangup: Bool)
}

/// One thread, one epoll set: every socket of the server is served here without blocking.
///
/// Other threads (the engines) hand work to the loop with `execute`, which queues a closure
/// and wakes the loop through an eventfd. Everything registered with the loop is touched on
/// the loop's thread only; `LoopBound` checks that at run time where a value must cross.
public final class EventLoop: Sendable {
    private let epoll: Int32
    private let wakeup: Int32
    private let tasks = Locked<[@Sendable () -> Void]>([])
    nonisolated(unsafe) private var handlers: [Int32: any EventHandler] = [:]
    nonisolated(unsafe) private var running = false
    nonisolated(unsafe) private var loopThread: pthread_t?

    public init() throws(LegibleError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw .system("epoll_create1") }
        wakeup = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeup >= 0 else { throw .system("eventfd") }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeup
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0 else { throw .system("epoll_ctl(eventfd)") }
    }

    deinit {
        close(wakeup)
        close(epoll)
    }

    public var inLoop: Bool { loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }

    /// Watches `descriptor`; on the loop thread only.
    public func register(_ descriptor: Int32, handler: any EventHandler, writable: Bool = false) throws(LegibleError) {
        handlers[descriptor] = handler
        try control(EPOLL_CTL_ADD, descriptor, readable: true, writable: writable)
    }

    /// Changes which events `descriptor` is watched for.
    public func modify(_ descriptor: Int32, readable: Bool, writable: Bool) {
        try? control(EPOLL_CTL_MOD, descriptor, readable: readable, writable: writable)
    }

    /// Stops watching `descriptor` (before it is closed).
    public func unregister(_ descriptor: Int32) {
        handlers[descriptor] = nil
        epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
    }

    private func control(_ operation: Int32, _ descriptor: Int32, readable: Bool, writable: Bool) throws(LegibleError) {
        var event = epoll_event()
        // EPOLLRDHUP only while reading: it stays raised after a half-close.
        event.events = (readable ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = descriptor
        guard epoll_ctl(epoll, operation, descriptor, &event) == 0 else { throw .system("epoll_ctl") }
    }

    /// Runs `task` on the loop thread, soon. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.withLock { $0.append(task) }
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
    }

    /// Serves events on the calling thread until `stop()`.
    public func run() {
        loopThread = pthread_self()
        running = true
        var events = [epoll_event](repeating: epoll_event(), count: 128)
        while running {
            let count = epoll_wait(epoll, &events, Int32(events.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("epoll_wait: \(String(cString: strerror(errno)))")
            }
            for index in 0..<Int(count) {
                let fd = events[index].data.fd
                let flags = events[index].events
                if fd == wakeup {
                    var value: UInt64 = 0
                    _ = read(wakeup, &value, 8)
                    continue
                }
                // A handler may unregister others while we iterate: look each up afresh.
                guard let handler = handlers[fd] else { continue }
                handler.handleEvents(
                    readable: flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue)
                        != 0,
                    writable: flags & EPOLLOUT.rawValue != 0,
                    hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0)
            }
            runTasks()
        }
    }

    private func runTasks() {
        while true {
            let batch = tasks.withLock { queue -> [@Sendable () -> Void] in
                defer { queue.removeAll() }
                return queue
            }
            if batch.isEmpty { return }
            for task in batch { task() }
        }
    }

    /// Ends `run()` after the current iteration; on the loop thread.
    public func stop() { running = false }
}

/// A value confined to an event loop's thread, made `Sendable` so it can ride in a closure
/// that `execute` brings back to that thread. Reading it elsewhere traps.
public struct LoopBound<Value>: @unchecked Sendable {
    private let stored: Value
    public let loop: EventLoop

    public init(_ value: Value, loop: EventLoop) {
        precondition(loop.inLoop, "LoopBound created off its loop")
        stored = value
        self.loop = loop
    }

    public var value: Value {
        precondition(loop.inLoop, "LoopBound read off its loop")
        return stored
    }
}

/// Calls `fire` on the loop thread every `interval` (a timerfd in the loop's epoll set), until
/// `cancel()`.
public final class RepeatingTimer: EventHandler {
    public let descriptor: Int32
    private let loop: EventLoop
    private let fire: () -> Void

    /// Starts the timer; on the loop thread only.
    public init(loop: EventLoop, interval: Duration, fire: @escaping () -> Void) throws(LegibleError) {
        descriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        guard descriptor >= 0 else { throw .system("timerfd_create") }
        self.loop = loop
        self.fire = fire
        let (seconds, attoseconds) = interval.components
        let period = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var spec = itimerspec(it_interval: period, it_value: period)
        guard timerfd_settime(descriptor, 0, &spec, nil) == 0 else {
            close(descriptor)
            throw .system("timerfd_settime")
        }
        try loop.register(descriptor, handler: self)
    }

    public func cancel() {
        loop.unregister(descriptor)
    }

    deinit { close(descriptor) }

    public func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        var expirations: UInt64 = 0
        guard read(descriptor, &expirations, 8) == 8 else { return }
        fire()
    }
}

/// Calls `fire` on the loop thread once, when armed (a timerfd in the loop's epoll set): after a
/// delay, or at an absolute CLOCK_MONOTONIC time (legible-load's schedule: a late wake-up does
/// not push later frames back); arming again moves it, `disarm` stops it.
public final class OneShotTimer: EventHandler {
    public let descriptor: Int32
    private let loop: EventLoop
    private let fire: () -> Void

    /// Creates the timer, disarmed; on the loop thread only.
    public init(loop: EventLoop, fire: @escaping () -> Void) throws(LegibleError) {
        descriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        guard descriptor >= 0 else { throw .system("timerfd_create") }
        self.loop = loop
        self.fire = fire
        do throws(LegibleError) {
            try loop.register(descriptor, handler: self)
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    /// Fires once after `delay` (at once when it is not positive).
    public func arm(after delay: Duration) {
        let (seconds, attoseconds) = max(delay, .nanoseconds(1)).components
        var spec = itimerspec(
            it_interval: timespec(tv_sec: 0, tv_nsec: 0),
            it_value: timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000)))
        timerfd_settime(descriptor, 0, &spec, nil)
    }

    /// Fires once at `nanoseconds` of CLOCK_MONOTONIC (at once if that has passed).
    public func arm(atMonotonicNanoseconds nanoseconds: Int64) {
        // An it_value of zero would disarm the timer: a time in the past is at least 1 ns.
        let target = max(nanoseconds, 1)
        var spec = itimerspec(
            it_interval: timespec(tv_sec: 0, tv_nsec: 0),
            it_value: timespec(tv_sec: Int(target / 1_000_000_000), tv_nsec: Int(target % 1_000_000_000)))
        timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    public func disarm() {
        var spec = itimerspec()
        timerfd_settime(descriptor, 0, &spec, nil)
    }

    /// Stops watching the timer (before it is dropped).
    public func cancel() { loop.unregister(descriptor) }

    public func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        var expirations: UInt64 = 0
        guard read(descriptor, &expirations, 8) == 8 else { return }
        fire()
    }
}
