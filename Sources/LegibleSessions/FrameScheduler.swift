public import LegibleCore

/// Identifies one engine: its script and its replica number.
public struct EngineID: Hashable, Sendable, CustomStringConvertible {
    public var script: Script
    public var replica: Int
    public init(script: Script, replica: Int) {
        self.script = script
        self.replica = replica
    }
    public var description: String { "\(script)#\(replica)" }
}

/// Decides which session's frame each engine reads next. Pure state: no threads, no clock.
///
/// Rules (DESIGN.md, "One frame's trip"):
/// - per session at most one frame in recognition and one pending (a `LatestWinsSlot`);
/// - an idle engine takes the pending frame of the session that has waited longest for its
///   script, so sessions are served round-robin and a 60 fps camera cannot starve a 5 fps one;
/// - no more than `workers` recognitions run at once across all scripts.
///
/// Memory is bounded by the number of sessions: each holds at most two jobs, and the waiting
/// queue holds each session at most once.
public struct FrameScheduler<Session: Hashable, Job> {
    /// Hand `job` to `engine`; call `completed(engine:)` when it is done.
    public struct Dispatch {
        public var engine: EngineID
        public var session: Session
        public var job: Job
    }

    /// What became of a submitted job.
    public struct SubmitOutcome {
        /// The pending job the new one replaced: answer it as dropped, at once.
        public var displaced: Job?
        /// Jobs to hand to engines now (the submitted one, when an engine was free).
        public var dispatches: [Dispatch]
    }

    private struct SessionState {
        var script: Script
        var inFlight: EngineID?
        var slot = LatestWinsSlot<Job>()
    }

    public let workers: Int
    private var idleEngines: [Script: [EngineID]] = [:]
    private var sessions: [Session: SessionState] = [:]
    /// Sessions with a pending job and none in flight, oldest first, per script. A session is
    /// in at most one queue at most once.
    private var waiting: [Script: [Session]] = [:]
    private var waitingSince: [Session: UInt64] = [:]
    private var ticket: UInt64 = 0
    public private(set) var running = 0

    /// - Parameters:
    ///   - engines: the engines this scheduler hands work to.
    ///   - workers: how many may run at once across all scripts.
    public init(engines: [EngineID], workers: Int) {
        precondition(workers > 0)
        self.workers = workers
        for engine in engines { idleEngines[engine.script, default: []].append(engine) }
    }

    /// Frames dropped by the latest-wins policy so far, over live sessions.
    public var droppedCount: UInt64 { sessions.values.reduce(0) { $0 + $1.slot.dropCount } }

    public func hasEngine(for script: Script) -> Bool { idleEngines[script] != nil }

    /// Registers a session that reads `script`.
    public mutating func addSession(_ session: Session, script: Script) {
        precondition(sessions[session] == nil, "session added twice")
        sessions[session] = SessionState(script: script)
    }

    /// Submits a session's newest frame.
    public mutating func submit(_ job: Job, for session: Session) -> SubmitOutcome {
        guard var state = sessions[session] else { preconditionFailure("submit for an unknown session") }
        let displaced = state.slot.offer(job)
        sessions[session] = state
        if state.inFlight == nil && displaced == nil { enqueue(session, script: state.script) }
        return SubmitOutcome(displaced: displaced, dispatches: dispatchAll())
    }

    /// Marks `engine` idle again and returns the jobs that can run now.
    public mutating func completed(engine: EngineID, session: Session) -> [Dispatch] {
        running -= 1
        idleEngines[engine.script, default: []].append(engine)
        if var state = sessions[session] {
            state.inFlight = nil
            sessions[session] = state
            if !state.slot.isEmpty { enqueue(session, script: state.script) }
        }
        return dispatchAll()
    }

    /// Forgets a session (ended or disconnected). Returns its pending job, which the caller
    /// answers; a job in flight finishes and its `completed` call still comes.
    public mutating func removeSession(_ session: Session) -> Job? {
        guard var state = sessions.removeValue(forKey: session) else { return nil }
        if let index = waiting[state.script]?.firstIndex(of: session) { waiting[state.script]!.remove(at: index) }
        waitingSince[session] = nil
        return state.slot.take()
    }

    /// True when the session has a job pending or in flight.
    public func isBusy(_ session: Session) -> Bool {
        guard let state = sessions[session] else { return false }
        return state.inFlight != nil || !state.slot.isEmpty
    }

    /// Everything that can run now. After every public call nothing more could be dispatched.
    private mutating func dispatchAll() -> [Dispatch] {
        var out: [Dispatch] = []
        while let dispatch = dispatchNext() { out.append(dispatch) }
        return out
    }

    private mutating func enqueue(_ session: Session, script: Script) {
        ticket += 1
        waitingSince[session] = ticket
        waiting[script, default: []].append(session)
    }

    /// The next job to run: across scripts with an idle engine, the session waiting longest.
    private mutating func dispatchNext() -> Dispatch? {
        guard running < workers else { return nil }
        var best: (script: Script, ticket: UInt64)?
        for (script, queue) in waiting where !queue.isEmpty && !(idleEngines[script]?.isEmpty ?? true) {
            let since = waitingSince[queue[0]] ?? 0
            if best == nil || since < best!.ticket { best = (script, since) }
        }
        guard let script = best?.script else { return nil }
        let session = waiting[script]!.removeFirst()
        waitingSince[session] = nil
        let engine = idleEngines[script]!.removeLast()
        var state = sessions[session]!
        let job = state.slot.take()!
        state.inFlight = engine
        sessions[session] = state
        running += 1
        return Dispatch(engine: engine, session: session, job: job)
    }
}
