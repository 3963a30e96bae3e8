public import LegibleCore

/// Identifies one engine: its key (models and init-time settings) and its replica number.
public struct EngineID: Hashable, Sendable, CustomStringConvertible {
    public var key: EngineKey
    public var replica: Int
    public init(key: EngineKey, replica: Int) {
        self.key = key
        self.replica = replica
    }
    public var description: String { "\(key)#\(replica)" }
}

/// How the server's engines are pooled: the bounds the scheduler keeps.
public struct PoolPolicy: Sendable, Hashable {
    /// Recognitions running at once across every engine (`--workers`).
    public var workers: Int
    /// Engines a standard key (one script's model) may have (`--replicas-per-script`).
    public var replicasPerScript: Int
    /// An engine idle this long is unloaded (`--engine-idle-seconds`); nil keeps engines.
    public var idleTimeout: Duration?
    /// Keys whose first engine stays loaded however idle (the default script's, so that the
    /// server stays ready).
    public var keepLoaded: Set<EngineKey>
    /// Engines of non-standard keys (custom words, no dictionary, several models) loaded at
    /// once; past it the least recently used idle one is unloaded first.
    public var maxCustomEngines: Int
    /// The resident memory those engines may take together, in MB (estimated per model).
    public var customEngineMegabytes: Int

    public init(
        workers: Int, replicasPerScript: Int = 1, idleTimeout: Duration? = nil, keepLoaded: Set<EngineKey> = [],
        maxCustomEngines: Int = 4, customEngineMegabytes: Int = 512
    ) {
        precondition(workers > 0 && replicasPerScript > 0 && maxCustomEngines > 0)
        self.workers = workers
        self.replicasPerScript = replicasPerScript
        self.idleTimeout = idleTimeout
        self.keepLoaded = keepLoaded
        self.maxCustomEngines = maxCustomEngines
        self.customEngineMegabytes = customEngineMegabytes
    }

    /// Engines `key` may have at once.
    public func replicas(of key: EngineKey) -> Int { key.isStandard ? replicasPerScript : 1 }
}

/// Decides which session's frame each engine reads next, and when engines load and unload.
/// Pure state: no threads and no clock (callers pass `now`, time since the server started).
///
/// Rules (DESIGN.md, "One frame's trip"):
/// - per session at most one frame in recognition and one pending (a `LatestWinsSlot`); a
///   newer frame replaces the pending one, which is handed back to be answered DROPPED;
/// - a pending frame older than its session's `max_frame_age_ms` when an engine frees up is
///   handed back as expired (DROPPED) instead of read;
/// - an idle engine takes the pending frame of the session that has waited longest for its
///   key, so sessions are served round-robin and a 60 fps camera cannot starve a 5 fps one;
/// - no more than `workers` recognitions run at once, across every key;
/// - engines belong to the pool, not to sessions: a key's first engine loads when a session
///   first needs it, more (up to its replicas) while its sessions wait and every engine of it
///   is busy; an engine idle for `idleTimeout` unloads; non-standard keys live in a small LRU
///   bounded by count and memory.
///
/// Memory is bounded by the number of sessions and engines: each session holds at most two
/// jobs, each waiting queue holds a session at most once, and the engines are bounded above.
public struct FrameScheduler<Session: Hashable, Job> {
    /// Hand `job` to `engine`; call `completed(engine:now:)` when it is done.
    public struct Dispatch {
        public var engine: EngineID
        public var session: Session
        public var job: Job
        /// This recognition's serial, for cancelling it (never 0).
        public var serial: UInt64
        /// How long the frame waited since it was submitted.
        public var waited: Duration
    }

    /// What the caller must do after an event, in this order: unload, load, answer the
    /// expired jobs as dropped, answer the failed ones, start the dispatches.
    public struct Actions {
        public var unload: [EngineID] = []
        public var load: [EngineID] = []
        public var expired: [(session: Session, job: Job)] = []
        public var failed: [(session: Session, job: Job, error: LegibleError)] = []
        public var dispatches: [Dispatch] = []

        public init() {}

        mutating func append(_ other: Actions) {
            unload += other.unload
            load += other.load
            expired += other.expired
            failed += other.failed
            dispatches += other.dispatches
        }
    }

    /// What became of a submitted job.
    public struct SubmitOutcome {
        /// The pending job the new one replaced: answer it as dropped, at once.
        public var displaced: Job?
        public var actions: Actions
    }

    /// A pool entry's life: loading, then idle or busy, until unloaded (removed).
    public enum EngineState: Sendable, Hashable {
        case loading
        case idle(since: Duration)
        case busy(serial: UInt64)
    }

    private struct Pending {
        var job: Job
        var key: EngineKey
        var submitted: Duration
        var maxAge: Duration?
    }

    private struct SessionState {
        var key: EngineKey
        var inFlight: (engine: EngineID, serial: UInt64)?
        /// The frame in recognition waits for another key's engine to read the rest of it.
        var handedOff = false
        var slot = LatestWinsSlot<Pending>()
    }

    /// A frame partly read, waiting for an engine of another key (`handOff`).
    private struct HandedOff {
        var session: Session
        var job: Job
        var since: Duration
    }

    public let policy: PoolPolicy
    /// Estimated resident MB of an engine of a key (for the LRU's memory bound).
    private let megabytes: @Sendable (EngineKey) -> Int
    private var engines: [EngineID: EngineState] = [:]
    /// When each non-standard engine last started a job (the LRU order).
    private var lastUsed: [EngineID: Duration] = [:]
    private var sessions: [Session: SessionState] = [:]
    /// Sessions with a pending job and none in flight, oldest first, per key of that job. A
    /// session is in at most one queue at most once.
    private var waiting: [EngineKey: [Session]] = [:]
    private var waitingSince: [Session: UInt64] = [:]
    /// Frames handed from one engine to another key's, oldest first per key; they go before
    /// any new frame, as they are already late.
    private var handedOff: [EngineKey: [HandedOff]] = [:]
    /// The session of each recognition in flight, by serial.
    private var inFlight: [UInt64: Session] = [:]
    private var ticket: UInt64 = 0
    private var nextSerial: UInt64 = 0
    public private(set) var running = 0

    /// - Parameters:
    ///   - megabytes: the estimated resident memory of one engine of a key.
    public init(policy: PoolPolicy, megabytes: @escaping @Sendable (EngineKey) -> Int = { _ in 0 }) {
        self.policy = policy
        self.megabytes = megabytes
    }

    // MARK: Observation

    /// Frames dropped by the latest-wins policy so far, over live sessions.
    public var droppedCount: UInt64 { sessions.values.reduce(0) { $0 + $1.slot.dropCount } }

    /// Every engine in the pool and its state.
    public var pool: [EngineID: EngineState] { engines }

    /// Engines of `key` loaded (idle or busy) now.
    public func loadedCount(of key: EngineKey) -> Int {
        engines.filter { $0.key.key == key && $0.value != .loading }.count
    }

    /// True while the session is registered (added and not yet removed).
    public func hasSession(_ session: Session) -> Bool { sessions[session] != nil }

    /// True when the session has a job pending or in flight.
    public func isBusy(_ session: Session) -> Bool {
        guard let state = sessions[session] else { return false }
        return state.inFlight != nil || state.handedOff || !state.slot.isEmpty
    }

    // MARK: Sessions

    /// Registers a session that reads with `key`'s engines; loads one if none is there.
    public mutating func addSession(_ session: Session, key: EngineKey, now: Duration) -> Actions {
        precondition(sessions[session] == nil, "session added twice")
        sessions[session] = SessionState(key: key)
        return ensureEngine(for: key, now: now)
    }

    /// Loads an engine of `key` now if it has none (the default script's, at start).
    public mutating func preload(_ key: EngineKey, now: Duration) -> Actions {
        ensureEngine(for: key, now: now)
    }

    /// The session's options changed its engine key: frames submitted from now on use it.
    public mutating func changeKey(of session: Session, to key: EngineKey, now: Duration) -> Actions {
        guard sessions[session] != nil else { return Actions() }
        sessions[session]!.key = key
        return ensureEngine(for: key, now: now)
    }

    /// Submits a session's newest frame, to be read by an engine of the session's key.
    ///
    /// - Parameter maxAge: drop the frame instead of reading it when it has waited this long.
    public mutating func submit(_ job: Job, for session: Session, maxAge: Duration? = nil, now: Duration)
        -> SubmitOutcome
    {
        guard var state = sessions[session] else { preconditionFailure("submit for an unknown session") }
        let pending = Pending(job: job, key: state.key, submitted: now, maxAge: maxAge)
        let displaced = state.slot.offer(pending)
        if let displaced, displaced.key != pending.key, let index = waiting[displaced.key]?.firstIndex(of: session) {
            // The replaced frame waited for another key's engine: wait for this one instead.
            waiting[displaced.key]!.remove(at: index)
            waitingSince[session] = nil
        }
        sessions[session] = state
        if state.inFlight == nil && !state.handedOff && waitingSince[session] == nil {
            enqueue(session, key: pending.key)
        }
        return SubmitOutcome(displaced: displaced?.job, actions: schedule(now: now))
    }

    /// Forgets a session (ended or disconnected). Returns its pending job, which the caller
    /// answers, and the recognition in flight, which the caller may cancel; its `completed`
    /// call still comes.
    public mutating func removeSession(_ session: Session) -> (
        pending: Job?, inFlight: (engine: EngineID, serial: UInt64)?
    ) {
        guard var state = sessions.removeValue(forKey: session) else { return (nil, nil) }
        for key in Array(waiting.keys) {
            if let index = waiting[key]!.firstIndex(of: session) { waiting[key]!.remove(at: index) }
        }
        waitingSince[session] = nil
        for key in Array(handedOff.keys) { handedOff[key]!.removeAll { $0.session == session } }
        return (state.slot.take()?.job, state.inFlight)
    }

    // MARK: Engines

    /// `engine` finished its job and is idle again.
    public mutating func completed(engine: EngineID, now: Duration) -> Actions {
        guard case .busy(let serial) = engines[engine] else {
            preconditionFailure("completed \(engine), which was not busy")
        }
        running -= 1
        engines[engine] = .idle(since: now)
        if let session = inFlight.removeValue(forKey: serial), sessions[session] != nil {
            sessions[session]!.inFlight = nil
            if let pending = sessions[session]!.slot.element { enqueue(session, key: pending.key) }
        }
        return schedule(now: now)
    }

    /// `engine` read what it could of its frame and hands the rest to an engine of `key` (the
    /// line of another script in a frame read script by script): `engine` is idle again, and
    /// `job` — the rest of the frame — runs on `key`'s next idle engine before any waiting
    /// frame, loading one if `key` has none. The session's newer frames keep waiting until
    /// the handed-off job completes. A job of a session that is gone is dropped.
    public mutating func handOff(engine: EngineID, job: Job, to key: EngineKey, now: Duration) -> Actions {
        guard case .busy(let serial) = engines[engine] else {
            preconditionFailure("handOff from \(engine), which was not busy")
        }
        running -= 1
        engines[engine] = .idle(since: now)
        if let session = inFlight.removeValue(forKey: serial), sessions[session] != nil {
            sessions[session]!.inFlight = nil
            sessions[session]!.handedOff = true
            handedOff[key, default: []].append(HandedOff(session: session, job: job, since: now))
            var actions = ensureEngine(for: key, now: now)
            actions.append(schedule(now: now))
            return actions
        }
        return schedule(now: now)
    }

    /// `engine` has loaded and can take work.
    public mutating func engineLoaded(_ engine: EngineID, now: Duration) -> Actions {
        guard engines[engine] == .loading else { return Actions() }
        engines[engine] = .idle(since: now)
        return schedule(now: now)
    }

    /// `engine` could not load: the frames waiting for its key fail with `error` when no
    /// other engine of the key is there to read them.
    public mutating func engineFailed(_ engine: EngineID, error: LegibleError, now: Duration) -> Actions {
        engines[engine] = nil
        var actions = Actions()
        if !engines.keys.contains(where: { $0.key == engine.key }) {
            for parked in handedOff.removeValue(forKey: engine.key) ?? [] {
                sessions[parked.session]?.handedOff = false
                actions.failed.append((parked.session, parked.job, error))
                if let pending = sessions[parked.session]?.slot.element {
                    enqueue(parked.session, key: pending.key)
                }
            }
            for session in waiting[engine.key] ?? [] {
                waitingSince[session] = nil
                if let pending = sessions[session]?.slot.take() { actions.failed.append((session, pending.job, error)) }
            }
            waiting[engine.key] = nil
        }
        actions.append(schedule(now: now))
        return actions
    }

    /// Time passed: unloads engines idle longer than the policy allows.
    public mutating func tick(now: Duration) -> Actions {
        var actions = Actions()
        if let timeout = policy.idleTimeout {
            for (engine, state) in engines {
                guard case .idle(let since) = state, now - since >= timeout else { continue }
                if policy.keepLoaded.contains(engine.key) && engine.replica == 0 { continue }
                unload(engine, into: &actions)
            }
        }
        actions.append(schedule(now: now))
        return actions
    }

    /// Every engine, for shutdown.
    public mutating func unloadAll() -> [EngineID] {
        let all = Array(engines.keys)
        engines.removeAll()
        lastUsed.removeAll()
        return all
    }

    // MARK: Scheduling

    private mutating func enqueue(_ session: Session, key: EngineKey) {
        guard waitingSince[session] == nil else { return }
        ticket += 1
        waitingSince[session] = ticket
        waiting[key, default: []].append(session)
    }

    private mutating func unload(_ engine: EngineID, into actions: inout Actions) {
        engines[engine] = nil
        lastUsed[engine] = nil
        actions.unload.append(engine)
    }

    /// Everything that can happen now: expired frames out, idle engines to the
    /// longest-waiting sessions, more engines where sessions wait. After every public call
    /// nothing more could be dispatched.
    private mutating func schedule(now: Duration) -> Actions {
        var actions = Actions()
        while let next = dispatchHandedOff(now: now) ?? dispatchNext(now: now, expired: &actions.expired) {
            actions.dispatches.append(next)
        }
        for (key, queue) in handedOff where !queue.isEmpty {
            actions.append(ensureEngine(for: key, now: now, demand: true))
        }
        for (key, queue) in waiting where !queue.isEmpty {
            actions.append(ensureEngine(for: key, now: now, demand: true))
        }
        return actions
    }

    /// The oldest handed-off job whose key has an idle engine, if a worker is free.
    private mutating func dispatchHandedOff(now: Duration) -> Dispatch? {
        guard running < policy.workers else { return nil }
        let ready = handedOff.filter { !$0.value.isEmpty && idleEngine(of: $0.key) != nil }
        guard let key = ready.min(by: { $0.value[0].since < $1.value[0].since })?.key else { return nil }
        let parked = handedOff[key]!.removeFirst()
        sessions[parked.session]!.handedOff = false
        return start(
            parked.job, of: parked.session, on: idleEngine(of: key)!, key: key, waited: now - parked.since, now: now)
    }

    /// Marks `engine` busy with `job` and returns its dispatch.
    private mutating func start(
        _ job: Job, of session: Session, on engine: EngineID, key: EngineKey, waited: Duration, now: Duration
    ) -> Dispatch {
        nextSerial += 1
        engines[engine] = .busy(serial: nextSerial)
        if !key.isStandard { lastUsed[engine] = now }
        sessions[session]!.inFlight = (engine, nextSerial)
        inFlight[nextSerial] = session
        running += 1
        return Dispatch(engine: engine, session: session, job: job, serial: nextSerial, waited: waited)
    }

    /// The next job to run: across keys with an idle engine, the session waiting longest.
    private mutating func dispatchNext(now: Duration, expired: inout [(session: Session, job: Job)]) -> Dispatch? {
        while running < policy.workers {
            var best: (key: EngineKey, ticket: UInt64)?
            for (key, queue) in waiting where !queue.isEmpty && idleEngine(of: key) != nil {
                let since = waitingSince[queue[0]] ?? 0
                if best == nil || since < best!.ticket { best = (key, since) }
            }
            guard let key = best?.key else { return nil }
            let session = waiting[key]!.removeFirst()
            waitingSince[session] = nil
            guard let pending = sessions[session]!.slot.take() else { continue }
            if let maxAge = pending.maxAge, now - pending.submitted > maxAge {
                expired.append((session, pending.job))
                continue
            }
            return start(
                pending.job, of: session, on: idleEngine(of: key)!, key: key, waited: now - pending.submitted, now: now)
        }
        return nil
    }

    private func idleEngine(of key: EngineKey) -> EngineID? {
        engines.filter { $0.key.key == key }.compactMap { entry -> (EngineID, Duration)? in
            if case .idle(let since) = entry.value { return (entry.key, since) }
            return nil
        }.min { ($0.0.replica, $0.1) < ($1.0.replica, $1.1) }?.0
    }

    /// Loads an engine of `key` when it has none, or (with `demand`) when sessions wait, none
    /// of its engines is idle or loading, and it has fewer than its replicas. Non-standard
    /// keys first make room in their LRU.
    private mutating func ensureEngine(for key: EngineKey, now: Duration, demand: Bool = false) -> Actions {
        var actions = Actions()
        let mine = engines.filter { $0.key.key == key }
        if !mine.isEmpty {
            guard demand, mine.count < policy.replicas(of: key) else { return actions }
            let canServe = mine.values.contains { state in
                if case .busy = state { return false }
                return true
            }
            guard !canServe else { return actions }
        }
        if !key.isStandard && !makeRoom(for: key, into: &actions) { return actions }
        let replica = (0...).first { !engines.keys.contains(EngineID(key: key, replica: $0)) }!
        let engine = EngineID(key: key, replica: replica)
        engines[engine] = .loading
        actions.load.append(engine)
        return actions
    }

    /// Unloads least recently used idle non-standard engines until one of `key` fits the
    /// count and memory bounds; false when it cannot fit yet (the others are busy).
    private mutating func makeRoom(for key: EngineKey, into actions: inout Actions) -> Bool {
        func custom() -> [EngineID] { engines.keys.filter { !$0.key.isStandard } }
        func fits() -> Bool {
            let current = custom()
            let memory = current.reduce(0) { $0 + megabytes($1.key) } + megabytes(key)
            return current.count + 1 <= policy.maxCustomEngines
                && (memory <= policy.customEngineMegabytes || current.isEmpty)
        }
        while !fits() {
            let idle = custom().compactMap { engine -> (EngineID, Duration)? in
                guard case .idle(let since) = engines[engine] else { return nil }
                return (engine, lastUsed[engine] ?? since)
            }
            guard let victim = idle.min(by: { $0.1 < $1.1 })?.0 else { return false }
            unload(victim, into: &actions)
        }
        return true
    }
}
