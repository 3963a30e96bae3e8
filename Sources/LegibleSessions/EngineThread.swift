internal import Foundation

/// A thread of its own for one engine, and the non-`Sendable` processor that lives on it.
///
/// Blocking OCR must never run on an I/O thread or on Swift's cooperative pool, and a
/// Tesseract handle must be used by one thread only. So each engine gets a dedicated thread:
/// the processor is created on it by `makeProcessor` (loading a model takes 0.1–1 s, so the
/// caller is told by `onStart` rather than made to wait), used only by the jobs run on it, and
/// destroyed on it when the thread stops. The scheduler gives an engine one job at a time; the
/// job slot here holds at most one, and a second is a programming error.
public final class EngineThread<Processor>: Sendable {
    public typealias Job = @Sendable (Processor) -> Void

    private let condition = NSCondition()
    // Guarded by `condition`.
    nonisolated(unsafe) private var job: Job?
    nonisolated(unsafe) private var stopping = false
    nonisolated(unsafe) private var stopped = false

    public let name: String

    /// Starts the thread, which creates the processor and then calls `onStart` on itself with
    /// nil, or with what `makeProcessor` threw (and ends).
    public init(
        name: String, makeProcessor: @escaping @Sendable () throws -> Processor,
        onStart: @escaping @Sendable ((any Error)?) -> Void
    ) {
        self.name = name
        let thread = Thread { [self] in self.main(makeProcessor, onStart) }
        thread.name = name
        thread.start()
    }

    /// Starts the thread and waits for the processor; throws what `makeProcessor` threw.
    public convenience init(name: String, makeProcessor: @escaping @Sendable () throws -> Processor) throws {
        let started = StartSignal()
        self.init(name: name, makeProcessor: makeProcessor) { error in started.signal(error) }
        if let error = started.wait() { throw error }
    }

    /// Runs `job` on the engine thread. The engine must be idle.
    public func run(_ job: @escaping Job) {
        condition.lock()
        defer { condition.unlock() }
        precondition(self.job == nil, "engine \(name) was given a second job while busy")
        precondition(!stopping, "engine \(name) was given a job after stop()")
        self.job = job
        condition.broadcast()
    }

    /// Lets the current job finish, then destroys the processor on its thread; returns at once.
    public func requestStop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// `requestStop()`, then waits until the processor is destroyed.
    public func stop() {
        requestStop()
        condition.lock()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    private func main(_ makeProcessor: @Sendable () throws -> Processor, _ onStart: @Sendable ((any Error)?) -> Void) {
        var processor: Processor?
        do {
            processor = try makeProcessor()
        } catch {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
            onStart(error)
            return
        }
        onStart(nil)
        condition.lock()
        while true {
            while job == nil && !stopping { condition.wait() }
            guard let next = job else { break }
            // Empty the slot before running: the job's last act is to tell the loop it is
            // done, and the loop may hand this engine its next job at once.
            job = nil
            condition.unlock()
            next(processor!)
            condition.lock()
        }
        condition.unlock()
        processor = nil
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}

/// A one-shot signal carrying an optional error from the engine thread to a waiting caller.
private final class StartSignal: Sendable {
    private let condition = NSCondition()
    nonisolated(unsafe) private var done = false
    nonisolated(unsafe) private var error: (any Error)?

    func signal(_ error: (any Error)?) {
        condition.lock()
        self.error = error
        done = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        while !done { condition.wait() }
        return error
    }
}
