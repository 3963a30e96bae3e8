internal import Dispatch
internal import Glibc
internal import LegibleClient
internal import LegibleCommandLine
internal import LegibleCore
internal import LegibleLoadCore
internal import LegibleSockets
internal import LegibleWire

/// What a finished run hands to the reports.
struct RunOutcome {
    var schedule: OpenLoopSchedule
    var ledgers: [SessionLedger]
    /// Nanoseconds from t0 to the end of the run.
    var end: Nanoseconds
    var processSamples: [ProcessSample]
    /// The run stopped at its hard deadline with sessions still open.
    var hitDeadline: Bool
    /// When SIGINT or SIGTERM ended the schedule early (nanoseconds from t0).
    var interruptedAt: Nanoseconds?
}

/// Drives a whole run on one event loop, on the calling thread:
///
/// 1. connect every session (blocking connects, before the clock starts) and send StartSession;
/// 2. when every session has its SessionStarted (or was refused), fix t0 a little ahead and
///    start the schedule: one timerfd, re-armed at each next due time, hands each due frame to
///    its session (`ScheduleCursor` orders them);
/// 3. after a session's last frame, EndSession; the server answers everything, sends the
///    summary and closes;
/// 4. the run ends when every session is closed, or at the hard deadline
///    (t0 + window + drain timeout), whatever is still open then is counted unanswered.
final class LoadRunner: LoadSessionDelegate {
    private let settings: LoadSettings
    private let frames: [LoadFrame]
    private let schedule: OpenLoopSchedule
    private let loop: EventLoop
    private var sessions: [LoadSession] = []
    private var cursor: ScheduleCursor
    private var timer: OneShotTimer!
    private var sampler: RepeatingTimer?
    private var signals: ShutdownSignalHandler?
    private var interruptedAt: Nanoseconds?
    private var processSampler: ProcessSampler?
    private var samples: [ProcessSample] = []
    /// Absolute CLOCK_MONOTONIC time of the schedule's zero; set when every session started.
    private var t0: Nanoseconds?
    private var resolvedStarts = 0
    private var openSessions = 0
    private var phase = Phase.starting
    private var hitDeadline = false
    private var end: Nanoseconds = 0

    private enum Phase { case starting, streaming, draining, finished }

    /// How long SessionStarted may take, for all sessions together.
    static let startTimeout: Nanoseconds = 10 * nanosecondsPerSecond
    /// Between the last SessionStarted and t0: the loop is idle when the first frame is due.
    static let lead: Nanoseconds = 20_000_000

    init(settings: LoadSettings, frames: [LoadFrame]) throws(LegibleError) {
        self.settings = settings
        self.frames = frames
        self.schedule = settings.schedule
        self.cursor = settings.schedule.makeCursor()
        self.loop = try EventLoop()
    }

    func now() -> Nanoseconds {
        Monotonic.now() - (t0 ?? Monotonic.now())
    }

    /// Connects session 0 to the first address that answers, the others to the same one.
    /// Throws `.unavailable` when the server cannot be reached.
    func connect() throws(LegibleError) -> ServerAddress {
        let (first, address) = try Socket.connect(toFirstOf: settings.addresses)
        var sockets = [first]
        for _ in 1..<schedule.sessions {
            do throws(LegibleError) {
                sockets.append(try Socket.connect(to: address))
            } catch {
                throw LegibleError(
                    .unavailable, "session \(sockets.count) cannot connect to \(address): \(error.message)")
            }
        }
        processSampler = ProcessSampler(pid: settings.serverPID ?? ServerProcessLocator.peerPID(of: sockets[0]))
        timer = try OneShotTimer(loop: loop) { [unowned self] in self.timerFired() }
        signals = try ShutdownSignalHandler(loop: loop) { [unowned self] _ in self.interrupt() }
        for (index, socket) in sockets.enumerated() {
            let script = settings.scripts[index % settings.scripts.count]
            let stream = try settings.transport.stream(
                on: socket, address: address, maxMessageBytes: 64 << 20, tls: settings.tls)
            let session = LoadSession(index: index, script: script, stream: stream, loop: loop, delegate: self)
            let options = script.applied(to: settings.options)
            try session.start(StartSession(clientName: "legible-load/\(LoadSettings.version)", options: options))
            sessions.append(session)
        }
        openSessions = sessions.count
        return address
    }

    /// The server process's PID when known (SO_PEERCRED or --server-pid).
    var serverPID: Int32? { processSampler?.pid }

    /// Runs the loop until the run ends.
    func run() -> RunOutcome {
        timer.arm(at: Monotonic.now() + LoadRunner.startTimeout)
        // A watchdog beyond every bound of the loop itself: if something blocks the loop
        // thread (it should not), the process still ends within its hard limit.
        let limit = Double(LoadRunner.startTimeout + schedule.window) / 1e9 + settings.drainTimeout + 5
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
            StandardStream.error.write("legible-load: the run overran its hard limit of \(Int(limit)) s; aborting\n")
            _exit(1)
        }
        if resolvedStarts == sessions.count { begin() }
        if phase != .finished { loop.run() }
        return RunOutcome(
            schedule: schedule, ledgers: sessions.map(\.ledger), end: end, processSamples: samples,
            hitDeadline: hitDeadline, interruptedAt: interruptedAt)
    }

    /// Sessions the server accepted (SessionStarted); the others were refused or timed out.
    private(set) var acceptedSessions = 0

    // MARK: Session events

    func sessionStarted(_ session: LoadSession) {
        resolvedStarts += 1
        if session.state == .streaming { acceptedSessions += 1 }
        if phase == .starting && resolvedStarts == sessions.count { begin() }
    }

    func sessionClosed(_ session: LoadSession) {
        openSessions -= 1
        if openSessions == 0 && (phase == .streaming || phase == .draining) { countTheRestAndFinish() }
    }

    /// Nobody is left to send to: whatever is still due is counted (client_skipped,
    /// session_closed), not waited for.
    private func countTheRestAndFinish() {
        while let frame = cursor.next() {
            sessions[frame.session].frameDue(frame.index, scheduled: frame.time, image: image(for: frame))
        }
        finish()
    }

    // MARK: The schedule

    private func begin() {
        guard phase == .starting else { return }
        let zero = Monotonic.now() + LoadRunner.lead
        t0 = zero
        phase = .streaming
        sample()
        sampler = try? RepeatingTimer(loop: loop, interval: .seconds(1)) { [unowned self] in self.sample() }
        if openSessions == 0 {
            countTheRestAndFinish()
            return
        }
        timer.arm(at: zero + (cursor.nextTime ?? 0))
    }

    private func timerFired() {
        switch phase {
        case .starting:
            // SessionStarted did not come in time for some: go on with those that have it.
            for session in sessions where session.state == .starting {
                session.abandon(reason: "no SessionStarted within \(LoadRunner.startTimeout / nanosecondsPerSecond) s")
            }
            if phase == .starting { begin() }
        case .streaming:
            sendDueFrames()
        case .draining:
            hitDeadline = sessions.contains { $0.state != .closed }
            finish()
        case .finished:
            break
        }
    }

    private func sendDueFrames() {
        let now = self.now()
        while let due = cursor.nextTime, due <= now, let frame = cursor.next() {
            let session = sessions[frame.session]
            session.frameDue(frame.index, scheduled: frame.time, image: image(for: frame))
            if frame.isLastOfSession { session.endSending() }
        }
        if let next = cursor.nextTime {
            timer.arm(at: t0! + next)
        } else {
            // --max-frames may end the schedule before some sessions' last frame.
            for session in sessions { session.endSending() }
            phase = .draining
            timer.arm(at: t0! + schedule.window + Nanoseconds(settings.drainTimeout * 1e9))
        }
    }

    /// Ctrl-C: the first stops the schedule (frames not yet due are not counted) and drains
    /// for at most the drain timeout; the second ends the run now.
    private func interrupt() {
        switch phase {
        case .starting, .draining:
            if interruptedAt == nil { interruptedAt = t0 == nil ? 0 : now() }
            finish()
        case .streaming:
            interruptedAt = now()
            StandardStream.error.write("legible-load: interrupted; draining (Ctrl-C again to stop now)\n")
            cursor = ScheduleCursor.exhausted(schedule)
            for session in sessions { session.endSending() }
            phase = .draining
            timer.arm(at: Monotonic.now() + Nanoseconds(settings.drainTimeout * 1e9))
        case .finished:
            break
        }
    }

    /// Session k's frame i shows image (k + i) mod count: consecutive frames differ, and
    /// sessions are out of step with each other.
    private func image(for frame: ScheduledFrame) -> EncodedImage {
        frames[(frame.session + frame.index) % frames.count].image
    }

    private func finish() {
        guard phase != .finished else { return }
        phase = .finished
        end = now()
        sample()
        sampler?.cancel()
        signals?.cancel()
        timer.cancel()
        for session in sessions where session.state != .closed {
            session.abandon(reason: "still open at the hard deadline (window + \(settings.drainTimeout) s drain)")
        }
        loop.stop()
    }

    private func sample() {
        guard let t0, let reading = processSampler?.read() else { return }
        samples.append(
            ProcessSample(time: Monotonic.now() - t0, cpuSeconds: reading.cpuSeconds, rssBytes: reading.rssBytes))
    }
}
