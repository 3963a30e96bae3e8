internal import Foundation

/// A thread of its own for one engine, and the non-`Sendable` processor that lives on it.
///
/// Blocking OCR must never run on an I/O thread or on Swift's cooperative pool, and a
/// Tesseract handle must be used by one thread only. So each engine gets a dedicated thread:
/// the processor is created on it by `makeProcessor`, used only by the jobs run on it, and
/// destroyed on it when the thread stops. The scheduler gives an engine one job at a time; the
/// job slot here holds at most one, and a second is a programming error.
public final class EngineThread<Processor>: Sendable {
    public typealias Job = @Sendable (Processor) -> Void

    private let condition = NSCondition()
    // Guarded by `condition`.
    nonisolated(unsafe) private var job: Job?
    nonisolated(unsafe) private var stopping = false
    nonisolated(unsafe) private var stopped = false
    nonisolated(unsafe) private var startError: (any Error)?
    nonisolated(unsafe) private var started = false

    public let name: String

    /// Starts the thread and creates the processor on it; throws what `makeProcessor` threw.
    public init(name: String, makeProcessor: @escaping @Sendable () throws -> Processor) throws {
        self.name = name
        let thread = Thread { [self] in self.main(makeProcessor) }
        thread.name = name
        thread.start()
        condition.lock()
        while !started { condition.wait() }
        let error = startError
        condition.unlock()
        if let error { throw error }
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

    /// Lets the current job finish, destroys the processor on its thread, and waits for that.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    private func main(_ makeProcessor: @Sendable () throws -> Processor) {
        var processor: Processor?
        do {
            processor = try makeProcessor()
        } catch {
            condition.lock()
            startError = error
        }
        if processor != nil { condition.lock() }
        started = true
        condition.broadcast()
        guard processor != nil else {
            stopped = true
            condition.unlock()
            return
        }
        while true {
            while job == nil && !stopping { condition.wait() }
            guard let next = job else { break }
            condition.unlock()
            next(processor!)
            condition.lock()
            job = nil
        }
        processor = nil
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
