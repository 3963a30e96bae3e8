public import LegibleCore
public import LegibleSessions

/// A `FrameScheduler` driven by a manual clock with fake engines: each engine loads in
/// `loadTime` and reads any frame in `readTime(key)`. Tests feed frames at chosen times and
/// read back what happened, deterministically and without threads.
public struct SimulatedPool<Session: Hashable & Sendable> {
    /// A frame as the simulation tracks it.
    public struct Job: Hashable, Sendable {
        public var session: Session
        public var id: Int
        public var sent: Duration

        public init(session: Session, id: Int, sent: Duration) {
            self.session = session
            self.id = id
            self.sent = sent
        }
    }

    /// What became of a frame.
    public enum Fate: Hashable, Sendable {
        case read(engine: EngineID, started: Duration, finished: Duration)
        case dropped(at: Duration)
        case expired(at: Duration)
        case failed(at: Duration)
    }

    public private(set) var scheduler: FrameScheduler<Session, Job>
    public private(set) var clock = ManualClock()
    public private(set) var fates: [Job: Fate] = [:]
    /// Jobs in the order engines started them.
    public private(set) var started: [Job] = []
    /// Engine loads and unloads, in order.
    public private(set) var loads: [EngineID] = []
    public private(set) var unloads: [EngineID] = []
    /// The most recognitions ever running at once.
    public private(set) var peakRunning = 0

    private let loadTime: Duration
    private let readTime: (EngineKey) -> Duration
    private var running: [(engine: EngineID, job: Job, started: Duration, done: Duration)] = []
    private var loading: [(engine: EngineID, done: Duration)] = []

    public init(
        policy: PoolPolicy, loadTime: Duration = .milliseconds(100),
        megabytes: @escaping @Sendable (EngineKey) -> Int = { _ in 0 },
        readTime: @escaping (EngineKey) -> Duration = { _ in .milliseconds(100) }
    ) {
        scheduler = FrameScheduler(policy: policy, megabytes: megabytes)
        self.loadTime = loadTime
        self.readTime = readTime
    }

    public mutating func addSession(_ session: Session, key: EngineKey) {
        apply(scheduler.addSession(session, key: key, now: clock.now))
    }

    public mutating func changeKey(of session: Session, to key: EngineKey) {
        apply(scheduler.changeKey(of: session, to: key, now: clock.now))
    }

    /// Sends frame `id` of `session` now.
    public mutating func send(_ id: Int, from session: Session, maxAge: Duration? = nil) {
        let job = Job(session: session, id: id, sent: clock.now)
        let outcome = scheduler.submit(job, for: session, maxAge: maxAge, now: clock.now)
        if let displaced = outcome.displaced { fates[displaced] = .dropped(at: clock.now) }
        apply(outcome.actions)
    }

    /// Removes a session; returns the engine and serial of its recognition in flight.
    public mutating func remove(_ session: Session) -> (engine: EngineID, serial: UInt64)? {
        let (pending, inFlight) = scheduler.removeSession(session)
        if let pending { fates[pending] = .dropped(at: clock.now) }
        return inFlight
    }

    /// Runs every load and recognition that finishes up to `instant`, in time order, and
    /// ticks the scheduler at `instant`.
    public mutating func run(until instant: Duration) {
        while true {
            let nextRead = running.map(\.done).min()
            let nextLoad = loading.map(\.done).min()
            guard let next = [nextRead, nextLoad].compactMap({ $0 }).min(), next <= instant else { break }
            clock.advance(to: next)
            if let index = loading.firstIndex(where: { $0.done == next }) {
                let engine = loading.remove(at: index).engine
                apply(scheduler.engineLoaded(engine, now: clock.now))
            } else if let index = running.firstIndex(where: { $0.done == next }) {
                let finished = running.remove(at: index)
                fates[finished.job] = .read(engine: finished.engine, started: finished.started, finished: next)
                apply(scheduler.completed(engine: finished.engine, now: clock.now))
            }
        }
        clock.advance(to: instant)
        apply(scheduler.tick(now: clock.now))
    }

    public mutating func run(for duration: Duration) { run(until: clock.now + duration) }

    private mutating func apply(_ actions: FrameScheduler<Session, Job>.Actions) {
        unloads += actions.unload
        for engine in actions.load {
            loads.append(engine)
            loading.append((engine, clock.now + loadTime))
        }
        for (_, job) in actions.expired { fates[job] = .expired(at: clock.now) }
        for (_, job, _) in actions.failed { fates[job] = .failed(at: clock.now) }
        for dispatch in actions.dispatches {
            started.append(dispatch.job)
            running.append((dispatch.engine, dispatch.job, clock.now, clock.now + readTime(dispatch.engine.key)))
        }
        peakRunning = max(peakRunning, running.count)
    }

    /// Frames of `session` read so far.
    public func readCount(of session: Session) -> Int {
        fates.filter {
            if case .read = $0.value { return $0.key.session == session }
            return false
        }.count
    }
}
