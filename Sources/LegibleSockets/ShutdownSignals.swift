internal import CLinux
internal import Glibc
public import LegibleCore

/// SIGINT and SIGTERM (and SIGHUP, for a server that reloads on it) read from a signalfd, so
/// that a poll or epoll loop sees them as events and no handler interrupts the program at an
/// arbitrary point.
///
/// Call `block()` before any thread starts: threads inherit the signal mask, and a thread
/// with the signals unblocked would take their default action (exit) instead.
public final class ShutdownSignals: Sendable {
    public let descriptor: Int32

    private static func set(hangUp: Bool) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        if hangUp { sigaddset(&set, SIGHUP) }
        return set
    }

    /// Blocks SIGINT and SIGTERM (and SIGHUP with `hangUp`) in the calling thread and every
    /// thread it starts later.
    public static func block(hangUp: Bool = false) {
        var signals = set(hangUp: hangUp)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    public init(hangUp: Bool = false) throws(LegibleError) {
        var signals = ShutdownSignals.set(hangUp: hangUp)
        descriptor = signalfd(-1, &signals, Int32(SFD_NONBLOCK) | Int32(SFD_CLOEXEC))
        guard descriptor >= 0 else { throw .system("signalfd") }
    }

    deinit { close(descriptor) }

    /// Blocks the calling thread until at least one signal arrives; returns those that did,
    /// oldest first. For a thread of its own (legibled's signal watcher), not an event loop.
    public func wait() -> [Int32] {
        while true {
            var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&watched, 1, -1) < 0, errno != EINTR { return [] }
            let received = take()
            if !received.isEmpty { return received }
        }
    }

    /// The signals that arrived since the last call, oldest first (empty when none).
    public func take() -> [Int32] {
        var received: [Int32] = []
        var info = signalfd_siginfo()
        while read(descriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            received.append(Int32(info.ssi_signo))
        }
        return received
    }
}

/// `ShutdownSignals` as events of an `EventLoop`: `received` runs on the loop's thread once
/// per signal, until `cancel()`.
public final class ShutdownSignalHandler: EventHandler {
    private let signals: ShutdownSignals
    private let loop: EventLoop
    private let received: (Int32) -> Void

    /// Opens the signalfd and registers it; on the loop thread only.
    public init(loop: EventLoop, received: @escaping (Int32) -> Void) throws(LegibleError) {
        signals = try ShutdownSignals()
        self.loop = loop
        self.received = received
        try loop.register(signals.descriptor, handler: self)
    }

    public func cancel() { loop.unregister(signals.descriptor) }

    public func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        for signal in signals.take() { received(signal) }
    }
}
