public import LegibleCore

/// The line detectors of a server, shared by every engine thread.
///
/// A detector holds ~50-110 MB (the compiled model and the runtime's buffers) and is busy only
/// while a frame is detected, so engines do not each own one: at most `--workers`
/// recognitions run at once, and so at most that many detectors are ever made. An engine
/// thread takes one for a frame and gives it back; a detector is used by one thread at a
/// time, handed over under the pool's lock.
public final class LineDetectorPool: Sendable {
    /// A detector between two uses. It is not `Sendable` (one thread at a time uses it); the
    /// pool's lock is what hands it from one thread to the next.
    private struct Idle: @unchecked Sendable {
        let detector: any LineDetecting
    }

    private let idle = Locked<[Idle]>([])
    private let make: @Sendable () throws(LegibleError) -> any LineDetecting

    /// `make` creates (and warms up) one detector; it runs on the thread that first needs one.
    public init(make: @escaping @Sendable () throws(LegibleError) -> any LineDetecting) {
        self.make = make
    }

    /// Runs `body` with a detector of the pool's, made if none is idle.
    public func withDetector<T>(_ body: (any LineDetecting) throws(LegibleError) -> T) throws(LegibleError) -> T {
        let taken = idle.withLock { $0.popLast() }
        let detector: any LineDetecting
        if let taken {
            detector = taken.detector
        } else {
            detector = try make()
        }
        defer { idle.withLock { $0.append(Idle(detector: detector)) } }
        return try body(detector)
    }
}
