public import LegibleCore
public import LegibleSessions
public import LegibleSockets
public import LegibleWire

/// What the pool tells the server about its sessions' frames and its engines; on the loop
/// thread. The server routes answers and drops to the session they belong to, and turns the
/// engine events into log lines, metrics and readiness.
public protocol EnginePoolDelegate: AnyObject {
    /// An engine answered a frame of `session` (recognized, skipped or failed).
    func enginePool(
        answered answer: EngineAnswer, session: UInt64, frame: Frame, settings: SessionSettings, timing: Timing)
    /// A frame of `session` was dropped unread (replaced by a newer one, or too old).
    func enginePool(dropped frame: Frame, session: UInt64, reason: Session.DropReason, timing: Timing)
    /// What an engine needs from `session`'s past for its next frame; nil once it has closed.
    func enginePool(sceneOf session: UInt64, now: Duration) -> SceneSnapshot?
    /// An engine loaded, unloaded or failed, or the pool's states changed (for metrics).
    func enginePool(_ event: EnginePool.Event)
}

/// The recognition side of the server: the scheduler's decisions carried out on engine
/// threads. Owns the `FrameScheduler` (which frame of which session goes to which engine,
/// latest wins, loading and unloading) and one `EngineThread` per loaded engine, each with
/// its `FramePipeline`. Lives on the event loop's thread; the engines hand their outcomes
/// back to it there.
///
/// ```
///  submit ─▶ FrameScheduler ─▶ EngineThread (FramePipeline.process) ─▶ loop ─▶ completed ─▶ delegate
/// ```
public final class EnginePool {
    /// A frame on its way to an engine.
    public struct Job: Sendable {
        var frame: Frame
        var settings: SessionSettings
        /// When it was read off its stream (server time): its Timing starts there.
        var received: Duration
        /// The frame partly read by another script's engine (read script by script).
        var handOff: LineHandOff?
    }

    public typealias EngineState = FrameScheduler<UInt64, Job>.EngineState

    /// What happened to the engines, for the server's log, metrics and readiness.
    public enum Event {
        case loading(EngineID)
        /// `megabytes`: what its worker process was measured to take (nil in process).
        case loaded(EngineID, milliseconds: Int, megabytes: Int?)
        case failedToLoad(EngineID, LegibleError)
        case unloaded(EngineID)
        /// An engine's worker process died reading a frame (the frame failed with INTERNAL); the
        /// engine goes on with the next worker.
        case crashed(EngineID, EngineCrash)
        /// An engine's worker process was killed: its recognition would not stop.
        case workerStopped(EngineID, EngineStopped)
        /// Which engines are loading, idle or busy now.
        case changed([EngineID: EngineState])
    }

    /// One engine: its thread (with the pipeline on it) and its cancel signal.
    private struct Engine {
        var thread: EngineThread<any FrameProcessor>
        var cancellation: RecognitionCancellation
        var loadStarted: ContinuousClock.Instant
    }

    public weak var delegate: (any EnginePoolDelegate)?
    private let pipelines: PipelineFactory
    /// Starts engines in worker processes; nil: on threads of this process.
    private let workers: WorkerLauncher?
    private let loop: EventLoop
    private let now: () -> Duration
    /// `--frame-deadline-ms`, given to every recognition.
    private let frameDeadline: Duration?
    private var scheduler: FrameScheduler<UInt64, Job>
    private var engines: [EngineID: Engine] = [:]
    private let clock = ContinuousClock()

    /// `now`: the server's clock (the scheduler's deadlines and the frames' timings).
    /// `workers`: run each engine's pipeline in a worker process of its own (nil: in this one).
    public init(
        pipelines: PipelineFactory, workers: WorkerLauncher? = nil, policy: PoolPolicy, frameDeadline: Duration?,
        loop: EventLoop, now: @escaping () -> Duration
    ) {
        self.pipelines = pipelines
        self.workers = workers
        self.loop = loop
        self.now = now
        self.frameDeadline = frameDeadline
        scheduler = FrameScheduler(
            policy: policy,
            megabytes: { [readsLines = pipelines.readsLines, workers] key in
                // In worker processes, what an engine of the key was measured to take once one
                // had loaded; before that (and in process), the catalogue's figure.
                workers?.measuredMegabytes(of: key)
                    ?? ModelCatalog.engineMegabytes(key, readsLines: readsLines, inWorkerProcess: workers != nil)
            })
    }

    /// Which engines are loading, idle or busy.
    public var state: [EngineID: EngineState] { scheduler.pool }

    /// How many engines of `key` are loaded.
    public func loadedCount(of key: EngineKey) -> Int { scheduler.loadedCount(of: key) }

    // MARK: Sessions

    /// Loads `key`'s engines before any session asks for them.
    public func preload(_ key: EngineKey) { perform(scheduler.preload(key, now: now())) }

    public func addSession(_ session: UInt64, key: EngineKey) {
        perform(scheduler.addSession(session, key: key, now: now()))
    }

    public func changeKey(of session: UInt64, to key: EngineKey) {
        perform(scheduler.changeKey(of: session, to: key, now: now()))
    }

    /// Forgets `session`: its pending frame has nobody to answer to, and its recognition in
    /// flight is stopped so that the engine is free for the others at once.
    public func removeSession(_ session: UInt64) {
        let (_, inFlight) = scheduler.removeSession(session)
        if let inFlight { engines[inFlight.engine]?.cancellation.cancel(inFlight.serial) }
    }

    /// `session`'s newest frame: it takes the session's one pending slot (latest wins; the
    /// frame it displaces is answered dropped at once, never decoded), or goes straight to a
    /// free engine.
    public func submit(_ frame: Frame, settings: SessionSettings, arrivedAt: Duration, session: UInt64) {
        let job = Job(frame: frame, settings: settings, received: arrivedAt)
        let outcome = scheduler.submit(job, for: session, maxAge: settings.maxFrameAge, now: now())
        if let displaced = outcome.displaced {
            delegate?.enginePool(
                dropped: displaced.frame, session: session, reason: .replaced, timing: dropTiming(displaced))
        }
        perform(outcome.actions)
    }

    /// Idle engines unloaded, pending frames past their max age dropped.
    public func tick() { perform(scheduler.tick(now: now())) }

    /// Stops every engine (at the end of `Server.run`); each finishes its recognition first.
    public func stopAll() {
        for id in scheduler.unloadAll() { engines.removeValue(forKey: id)?.thread.stop() }
        for engine in engines.values { engine.thread.stop() }
        engines.removeAll()
        workers?.stop()
    }

    // MARK: Carrying out the scheduler's decisions

    private func dropTiming(_ job: Job) -> Timing {
        Timing(clientTimestampMicros: job.frame.clientTimestampMicros, totalMicros: (now() - job.received).micros)
    }

    /// Carries out what the scheduler decided, in its order.
    private func perform(_ actions: FrameScheduler<UInt64, Job>.Actions) {
        for id in actions.unload {
            engines.removeValue(forKey: id)?.thread.requestStop()
            delegate?.enginePool(.unloaded(id))
        }
        for id in actions.load { startEngine(id) }
        for (session, job) in actions.expired {
            delegate?.enginePool(dropped: job.frame, session: session, reason: .tooOld, timing: dropTiming(job))
        }
        for (session, job, error) in actions.failed {
            delegate?.enginePool(
                answered: .failed(error), session: session, frame: job.frame, settings: job.settings,
                timing: Timing(clientTimestampMicros: job.frame.clientTimestampMicros))
        }
        for dispatch in actions.dispatches { start(dispatch) }
        if !actions.load.isEmpty || !actions.unload.isEmpty || !actions.dispatches.isEmpty {
            delegate?.enginePool(.changed(scheduler.pool))
        }
    }

    /// Loads an engine on a thread of its own; the loop hears when it is ready.
    private func startEngine(_ id: EngineID) {
        let pipelines = pipelines
        let workers = workers
        let cancellation = RecognitionCancellation()
        let pool = LoopBound(self, loop: loop)
        let thread = EngineThread<any FrameProcessor>(
            name: "engine-\(id)",
            makeProcessor: { () throws -> any FrameProcessor in
                if let workers {
                    return try WorkerProcessPipeline(key: id.key, launcher: workers, cancellation: cancellation)
                }
                return try pipelines.makePipeline(for: id.key, cancellation: cancellation)
            },
            onStart: { [loop] error in
                let failure = error.map { ($0 as? LegibleError) ?? LegibleError(.internal, "engine did not start") }
                loop.execute { pool.value.engineStarted(id, failure: failure) }
            })
        engines[id] = Engine(thread: thread, cancellation: cancellation, loadStarted: clock.now)
        delegate?.enginePool(.loading(id))
    }

    private func engineStarted(_ id: EngineID, failure: LegibleError?) {
        guard let engine = engines[id] else { return }
        if let failure {
            engines[id] = nil
            delegate?.enginePool(.failedToLoad(id, failure))
            perform(scheduler.engineFailed(id, error: failure, now: now()))
            return
        }
        delegate?.enginePool(
            .loaded(
                id, milliseconds: Int((clock.now - engine.loadStarted).micros / 1000),
                megabytes: workers?.measuredMegabytes(of: id.key)))
        perform(scheduler.engineLoaded(id, now: now()))
        delegate?.enginePool(.changed(scheduler.pool))
    }

    private func start(_ dispatch: FrameScheduler<UInt64, Job>.Dispatch) {
        let job = dispatch.job
        let engineID = dispatch.engine
        let session = dispatch.session
        let waited = dispatch.waited
        // The session's previous frame has been answered by now: its scene is current.
        let now = now()
        let context = FrameContext(
            serial: dispatch.serial, deadline: frameDeadline,
            scene: delegate?.enginePool(sceneOf: session, now: now) ?? SceneSnapshot(now: now))
        let pool = LoopBound(self, loop: loop)
        engines[engineID]!.thread.run { [loop] pipeline in
            let outcome =
                if let handOff = job.handOff {
                    pipeline.continueReading(handOff, settings: job.settings, context: context)
                } else {
                    pipeline.process(job.frame, settings: job.settings, context: context)
                }
            loop.execute {
                pool.value.completed(engine: engineID, session: session, job: job, waited: waited, outcome: outcome)
            }
        }
    }

    private func completed(engine: EngineID, session: UInt64, job: Job, waited: Duration, outcome: FrameOutcome) {
        let now = now()
        if case .failed(let error) = outcome {
            if let crash = error.cause as? EngineCrash { delegate?.enginePool(.crashed(engine, crash)) }
            if let stopped = error.cause as? EngineStopped { delegate?.enginePool(.workerStopped(engine, stopped)) }
        }
        // A session that closed meanwhile is answered nothing; its engine is still freed.
        let open = scheduler.hasSession(session)
        if case .handedOff(let handOff, let key) = outcome, open {
            var rest = job
            rest.handOff = handOff
            perform(scheduler.handOff(engine: engine, job: rest, to: key, now: now))
            delegate?.enginePool(.changed(scheduler.pool))
            return
        }
        if open {
            let timing = Timing(
                clientTimestampMicros: job.frame.clientTimestampMicros, queueMicros: waited.micros,
                totalMicros: (now - job.received).micros)
            let answer: EngineAnswer
            switch outcome {
            case .recognized(let recognition): answer = .recognized(recognition)
            case .skipped(let skip): answer = .skipped(skip)
            case .failed(let error): answer = .failed(error)
            case .handedOff: preconditionFailure("a handed-off frame is passed on above")
            }
            delegate?.enginePool(
                answered: answer, session: session, frame: job.frame, settings: job.settings, timing: timing)
        }
        perform(scheduler.completed(engine: engine, now: now))
        delegate?.enginePool(.changed(scheduler.pool))
    }
}
