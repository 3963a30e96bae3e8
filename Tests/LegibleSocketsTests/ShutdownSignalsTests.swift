import Glibc
import LegibleSockets
import Testing

@Suite("Shutdown signals")
struct ShutdownSignalsTests {
    /// A blocked SIGTERM and SIGINT wait in the signalfd, in order, instead of ending the
    /// process; `take` empties it.
    @Test func blockedSignalsArriveThroughTheDescriptorInOrder() throws {
        // Signals raised here are pending on this thread only, which the signalfd reads.
        var previous = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        ShutdownSignals.block()
        let signals = try ShutdownSignals()
        #expect(signals.take().isEmpty)
        raise(SIGTERM)
        raise(SIGINT)
        // Standard signals are delivered lowest number first: SIGINT (2) before SIGTERM (15).
        #expect(signals.take() == [SIGINT, SIGTERM])
        #expect(signals.take().isEmpty)
    }
}
