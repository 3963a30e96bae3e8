internal import Glibc

/// A value that threads share, read and changed only under a pthread mutex.
///
/// In place of Synchronization's `Mutex`: on Linux that hands a contended lock over inside the
/// kernel (a priority-inheritance futex), where ThreadSanitizer does not see it, so `make
/// test-tsan` reported races on values that were only ever touched under the lock. A pthread
/// mutex costs the same when uncontended, and ThreadSanitizer sees every hand-over.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Only read or written between pthread_mutex_lock and pthread_mutex_unlock.
    private var value: Value

    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock; what it returns leaves the lock.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
