internal import Glibc
public import LegibleCore
public import LegibleSessions
public import LegibleWire

/// What an engine thread runs its frames through: the pipeline itself (in process), or a
/// worker process that runs it (`WorkerProcessPipeline`).
public protocol FrameProcessor: AnyObject {
    func process(_ frame: Frame, settings: SessionSettings, context: FrameContext) -> FrameOutcome
    func continueReading(_ handOff: LineHandOff, settings: SessionSettings, context: FrameContext) -> FrameOutcome
}

extension FramePipeline: FrameProcessor {}

/// Why a worker process was ended by legibled: its recognition would not stop (cancelled, or
/// past its deadline), or it answered what it should not have.
public struct EngineStopped: Error, Sendable, CustomStringConvertible {
    public var processID: Int32
    /// The frame's answer: CANCELLED, DEADLINE_EXCEEDED or INTERNAL.
    public var reason: LegibleError.Code
    public var description: String { "engine process \(processID) stopped (\(reason))" }
}

/// An engine whose pipeline runs in a worker process (`EngineWorker`), so that a fault in a C
/// library (a Tesseract assert, a crash in a decoder) costs one frame, not the server, and a
/// recognition that will not stop — Tesseract's page layout does not look at its cancel
/// flag — can be stopped by ending its process.
///
/// Lives on its engine thread, which blocks on the worker's answer and wakes for the engine's
/// cancellation (`whenCancelled`) or the frame's deadline. A cancel goes to the
/// worker first (cooperative, as in process); if the answer does not come within
/// `killGrace`, or the deadline is `killGrace` past, the worker is killed, the frame answered
/// CANCELLED or DEADLINE_EXCEEDED, and the next worker taken. A worker that dies by itself
/// fails its frame with INTERNAL (its `EngineCrash` as the cause, which the pool counts).
final class WorkerProcessPipeline: FrameProcessor {
    /// How long a cancelled or overdue recognition may go on before its worker is killed.
    static let killGrace: Duration = .milliseconds(500)

    private let key: EngineKey
    private let launcher: WorkerLauncher
    private let cancellation: RecognitionCancellation
    /// nil between a crash and the next frame (the next worker is taken then).
    private var worker: WorkerProcess?
    /// The worker has answered `loaded`.
    private var loaded = false
    private let clock = ContinuousClock()
    /// A pipe the engine's cancellation writes a byte to, so that the wait for the worker's
    /// answer wakes at once to pass a cancel on (the worker may still be before the steps it
    /// cannot stop, such as the detector's inference).
    private let cancelled: (read: Int32, write: Int32)

    /// Takes a worker and waits until it has loaded its model; throws what kept it from loading.
    init(key: EngineKey, launcher: WorkerLauncher, cancellation: RecognitionCancellation) throws(LegibleError) {
        self.key = key
        self.launcher = launcher
        self.cancellation = cancellation
        worker = try launcher.start(key)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw LegibleError.system("pipe for an engine's cancels") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        cancelled = (ends[0], ends[1])
        let wake = ends[1]
        cancellation.whenCancelled {
            var byte: UInt8 = 1
            _ = write(wake, &byte, 1)
        }
        try ready()
    }

    deinit {
        cancellation.whenCancelled(nil)
        close(cancelled.read)
        close(cancelled.write)
    }

    func process(_ frame: Frame, settings: SessionSettings, context: FrameContext) -> FrameOutcome {
        run(.process(frame, settings, context), serial: context.serial, deadline: context.deadline)
    }

    func continueReading(_ handOff: LineHandOff, settings: SessionSettings, context: FrameContext) -> FrameOutcome {
        let left = (try? handOff.time.remaining()) ?? handOff.time.limit.map { _ in .zero }
        return run(.continueReading(handOff, settings, context), serial: context.serial, deadline: left)
    }

    /// A worker with its model loaded: the current one, or the next from the launcher (one
    /// retry when a spare turns out to have died meanwhile).
    private func ready() throws(LegibleError) {
        for attempt in 0..<2 {
            if worker == nil {
                worker = try launcher.replacement(for: key)
                loaded = false
            }
            guard !loaded, let current = worker else { return }
            do {
                guard let message = try current.channel.receive(timeout: nil) else { continue }
                switch try WorkerCodec.decode(WorkerReply.self, header: message.header, body: message.body) {
                case .loaded:
                    loaded = true
                    launcher.record(current, key: key)
                    return
                case .failedToLoad(let error):
                    worker = nil
                    throw error
                case .outcome:
                    throw LegibleError(.internal, "an engine worker answered a frame before loading")
                }
            } catch let error as LegibleError {
                throw error
            } catch {
                let crash = current.reap()
                worker = nil
                if attempt == 1 {
                    throw LegibleError(.internal, "the engine's worker process ended while loading", cause: crash)
                }
            }
        }
    }

    private func run(_ request: WorkerRequest, serial: UInt64, deadline: Duration?) -> FrameOutcome {
        let start = clock.now
        cancellation.begin(serial)
        do throws(LegibleError) {
            try ready()
        } catch {
            return .failed(error)
        }
        let worker = worker!
        defer { worker.shared?.releaseLargeFrames() }
        do {
            try worker.channel.send(try request.encoded(shared: worker.shared))
        } catch is WorkerChannel.Closed {
            return crashed(worker)
        } catch {
            return .failed(LegibleError(.internal, "could not pass the frame to its engine", cause: error))
        }
        var cancelSent: ContinuousClock.Instant?
        while true {
            // Wake for the answer, a cancel, or the time to kill, whichever comes first.
            let elapsed = clock.now - start
            let killIn = [
                cancelSent.map { Self.killGrace - (clock.now - $0) }, deadline.map { $0 + Self.killGrace - elapsed },
            ].compactMap { $0 }.min()
            let message: (header: WorkerMessageHeader, body: [UInt8])?
            do {
                message = try worker.channel.receive(
                    timeout: killIn.map { max($0, .milliseconds(1)) }, wakeUp: cancelled.read)
            } catch {
                return crashed(worker)
            }
            if let message {
                do {
                    guard
                        case .outcome(let answered, let outcome) = try WorkerCodec.decode(
                            WorkerReply.self, header: message.header, body: message.body),
                        answered == serial
                    else {
                        return stop(
                            worker,
                            LegibleError(.internal, "the engine's worker process answered out of turn; it was replaced")
                        )
                    }
                    return outcome
                } catch {
                    return stop(
                        worker,
                        LegibleError(.internal, "the engine's answer could not be read; it was replaced", cause: error))
                }
            }
            var drained = [UInt8](repeating: 0, count: 64)
            while read(cancelled.read, &drained, drained.count) > 0 {}
            let now = clock.now
            if cancelSent == nil, cancellation.isCancelled {
                cancelSent = now
                try? worker.channel.send(try! WorkerRequest.cancel(serial: serial).encoded())
            }
            if let cancelSent, now - cancelSent > Self.killGrace {
                return stop(worker, LegibleError(.cancelled, "the recognition was cancelled (its engine was stopped)"))
            }
            if let deadline, now - start > deadline + Self.killGrace {
                return stop(
                    worker,
                    LegibleError(
                        .deadlineExceeded,
                        "the recognition took longer than the \(deadline) deadline (its engine was stopped)"))
            }
        }
    }

    /// The worker died on its own: the frame fails with INTERNAL and the crash as its cause.
    private func crashed(_ process: WorkerProcess) -> FrameOutcome {
        let crash = process.reap()
        replace()
        return .failed(
            LegibleError(.internal, "the engine reading this frame stopped unexpectedly; it was replaced", cause: crash)
        )
    }

    /// Kills the worker and answers the frame with `error` (an `EngineStopped` as its cause).
    private func stop(_ process: WorkerProcess, _ error: LegibleError) -> FrameOutcome {
        process.kill()
        _ = process.reap()
        replace()
        var error = error
        error.cause = EngineStopped(processID: process.processID, reason: error.code)
        return .failed(error)
    }

    /// The next worker is taken now (a warm spare, or a new one loading), read when the next
    /// frame comes.
    private func replace() {
        worker = try? launcher.replacement(for: key)
        loaded = false
    }
}
