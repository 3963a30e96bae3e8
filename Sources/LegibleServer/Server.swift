internal import CLinux
internal import Glibc
public import LegibleCore
internal import LegibleDetection
internal import LegibleEngine
internal import LegibleSessions
internal import LegibleSockets
internal import LegibleWire
internal import LegibleWireProtobuf
internal import Synchronization

/// The server: listeners and connections on one event loop, engines on threads of their own,
/// and the scheduler between them.
///
/// ```
///  socket ─▶ FramedTransport ─▶ SessionHandler ─▶ Session ─▶ Server.submit ─▶ FrameScheduler ─▶ EngineThread
///    ▲        (a SessionStream)       ▲                                                          │
///    └── stream.write ◀── Session ◀───┴── SessionHandler ◀── Server.completed ◀── loop.execute ◀─┘
/// ```
public final class Server {
    let configuration: ServerConfiguration
    /// Makes each engine's pipeline (recognizers, shared line detectors) on its thread.
    private let pipelines: PipelineFactory
    let loop: EventLoop
    let log: Log
    let metrics = ServerMetrics()
    private let health: HealthState
    private var metricsEndpoint: MetricsEndpoint?
    private var listeners: [(address: ServerAddress, socket: Socket, handler: ListenerHandler)] = []
    /// Every open session stream, by serial.
    private var connections: [UInt64: SessionHandler] = [:]
    private var nextSerial: UInt64 = 0
    private var scheduler: FrameScheduler<UInt64, Job>
    private var engines: [EngineID: Engine] = [:]
    private var timer: RepeatingTimer?
    private var draining = false
    private var admittedSessions = 0
    /// Connections turned away at --max-connections.
    private(set) var refusedConnections: UInt64 = 0
    private let installedModels: Set<String>
    private let availableScripts: [Script]
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    /// The client deadlines every session keeps.
    private let deadlines: ClientDeadlines

    /// A frame on its way to an engine.
    struct Job: Sendable {
        var frame: Frame
        var settings: SessionSettings
        /// When it was read off its stream (server time): its Timing starts there.
        var received: Duration
        /// The frame partly read by another script's engine (read script by script).
        var handOff: LineHandOff?
    }

    /// One engine of the pool: its thread (with the pipeline on it) and its cancel signal.
    private struct Engine {
        var thread: EngineThread<FramePipeline>
        var cancellation: RecognitionCancellation
        var loadStarted: ContinuousClock.Instant
    }

    /// Checks the models and binds every listener; throws what stops the server from starting.
    ///
    /// The process's signal state is the caller's: a peer that hangs up must not kill it, so
    /// SIGPIPE should be ignored (legibled does so, and turns SIGTERM and SIGINT into
    /// `shutdownTrigger.drain`).
    public init(configuration: ServerConfiguration) throws(LegibleError) {
        self.configuration = configuration
        self.pipelines = PipelineFactory(
            settings: PipelineFactory.Settings(
                tessdata: configuration.tessdata, maxPixels: configuration.maxPixels,
                detector: configuration.detector == .ppOCRv4
                    ? (configuration.detectorModel, configuration.detectorMaxSide) : nil,
                minimumLineConfidence: configuration.minimumLineConfidence, ppOCRScripts: configuration.ppOCRScripts,
                recognitionModel: configuration.recognitionModel, secondOpinionBelow: configuration.secondOpinionBelow,
                recognizerFactory: configuration.recognizerFactory))
        self.log = Log(minimum: configuration.logLevel, format: configuration.logFormat)
        self.health = HealthState(metrics: metrics.registry)
        self.loop = try EventLoop()
        self.started = clock.now
        self.deadlines = ClientDeadlines(
            firstMessage: .seconds(configuration.firstMessageSeconds), message: .seconds(configuration.messageSeconds),
            idle: .seconds(configuration.idleSeconds), writeStall: .seconds(configuration.writeStallSeconds))
        let inventory = try ModelInventory(tessdata: configuration.tessdata, models: configuration.models)
        installedModels = inventory.installed
        availableScripts = inventory.availableScripts
        scheduler = FrameScheduler(
            policy: PoolPolicy(
                workers: configuration.workers, replicasPerScript: configuration.replicasPerScript,
                idleTimeout: configuration.engineIdleSeconds > 0 ? .seconds(configuration.engineIdleSeconds) : nil,
                keepLoaded: [configuration.defaultKey], maxCustomEngines: configuration.maxCustomEngines,
                customEngineMegabytes: configuration.customEngineMegabytes),
            megabytes: { key in key.models.reduce(0) { $0 + ModelCatalog.residentMegabytes($1) } })
        log(
            .info, "models",
            [
                "scripts": availableScripts.map(\.description).joined(separator: ","),
                "installed": installedModels.sorted().joined(separator: ","),
            ])
        try bindListeners()
    }

    private func bindListeners() throws(LegibleError) {
        for address in configuration.listen {
            switch ExposurePolicy.listener(
                address, tokensRequired: configuration.accessTokens.isRequired,
                allowUnauthenticatedRemote: configuration.allowUnauthenticatedRemote)
            {
            case .allow: break
            case .warn(let warning): log(.warning, warning, ["address": "\(address)"])
            case .refuse(let error): throw error
            }
            let socket = try Socket.listen(on: address, mode: configuration.socketMode)
            if case .unix(let path) = address, let group = configuration.socketGroup {
                try Socket.setGroup(of: path, to: group)
            }
            var shown = address
            if case .tcp(let host, 0) = address, let port = socket.boundPort() { shown = .tcp(host: host, port: port) }
            listeners.append((shown, socket, ListenerHandler(socket: socket)))
        }
    }

    /// Time since the server started: the clock of the scheduler and the sessions (the
    /// configuration's, when it gives one).
    var now: Duration { configuration.clock?() ?? clock.now - started }

    /// Serves on the calling thread until `shutdownTrigger.drain` is called, then drains:
    /// stops accepting, answers every frame received, sends each session its summary, and
    /// returns.
    public func run() throws(LegibleError) {
        try startServing()
        loop.run()
        timer?.cancel()
        for id in scheduler.unloadAll() { engines.removeValue(forKey: id)?.thread.stop() }
        for engine in engines.values { engine.thread.stop() }
        log(.info, "stopped")
    }

    private func startServing() throws(LegibleError) {
        for listener in listeners {
            listener.handler.server = self
            try loop.register(listener.socket.descriptor, handler: listener.handler)
            log(.info, "listening on \(listener.address)")
        }
        timer = try RepeatingTimer(loop: loop, interval: .seconds(1)) { [unowned self] in self.tick() }
        if let address = configuration.metricsAddress {
            if let warning = ExposurePolicy.metricsWarning(address) {
                log(.warning, warning, ["address": "\(address)"])
            }
            let endpoint = try MetricsEndpoint(address: address, state: health)
            metricsEndpoint = endpoint
            var shown = address
            if case .tcp(let host, _) = address { shown = .tcp(host: host, port: endpoint.port) }
            log(.info, "metrics on \(shown)")
        }
        metrics.pool(scheduler.pool)
        // The default script's engine loads as soon as the loop runs, on its own thread;
        // frames wait for it.
        let server = UnsafeTransfer(self)
        loop.execute {
            server.value.perform(
                server.value.scheduler.preload(server.value.configuration.defaultKey, now: server.value.now))
        }
    }

    // MARK: Connections

    func accept(from listener: Socket) {
        while !draining {
            let socket: Socket
            do throws(LegibleError) {
                guard let accepted = try listener.accept() else { return }
                socket = accepted
            } catch {
                log(.warning, "accept failed", ["reason": error.message])
                return
            }
            if connections.count >= configuration.maxConnections {
                // Told why, then closed: a client that retries sees a reason, not a reset.
                let refusal = MessageFraming.frame(
                    ProtobufCodec.encode(
                        .error(
                            WireError(
                                LegibleError(
                                    .resourceExhausted, "the server is at its limit of connections; try again later"),
                                fatal: true))))
                _ = refusal.withUnsafeBytes { try? socket.send($0) }
                socket.close()
                refusedConnections += 1
                metrics.refusedConnection()
                continue
            }
            let transport = FramedTransport(
                socket: socket, maxMessageBytes: configuration.maxMessageBytes,
                maxWriteQueueBytes: configuration.maxWriteQueueBytes, server: self)
            do throws(LegibleError) {
                try loop.register(socket.descriptor, handler: transport)
            } catch {
                log(.warning, "cannot watch a new connection", ["reason": error.message])
                socket.close()
                continue
            }
            adopt(transport)
        }
    }

    /// Starts a session on `stream`, a new stream of any transport: from now on it reports
    /// to the session's handler. On the loop thread.
    @discardableResult
    func adopt(_ stream: any SessionStream) -> SessionHandler {
        nextSerial += 1
        var session = SessionConfiguration(
            sessionID: Server.makeSessionID(serial: nextSerial), serverVersion: ServerConfiguration.version,
            limits: ServerLimits(
                maxMessageBytes: UInt64(configuration.maxMessageBytes), pendingFramesPerSession: 1,
                workers: UInt32(configuration.workers), replicasPerScript: UInt32(configuration.replicasPerScript),
                maxSessions: UInt32(clamping: configuration.maxSessions),
                frameDeadlineMillis: UInt32(clamping: configuration.frameDeadlineMillis)),
            availableScripts: availableScripts, models: configuration.models, installedModels: installedModels,
            engines: engineInfo(), accessTokens: configuration.accessTokens)
        session.readsLinesByScript = pipelines.readsLines && configuration.readsLinesByScript
        let handler = SessionHandler(
            serial: nextSerial, session: Session(configuration: session, deadlines: deadlines, connectedAt: now),
            stream: stream, server: self)
        stream.handler = handler
        connections[nextSerial] = handler
        metrics.sessions(admittedSessions, connections: connections.count)
        log(.debug, "stream opened", ["session": handler.sessionID])
        return handler
    }

    /// The pool as SessionStarted reports it: one entry per script this server serves.
    private func engineInfo() -> [EngineInfo] {
        availableScripts.map { script in
            let model = configuration.models.model(for: script)
            let key = EngineKey(models: [model])
            return EngineInfo(
                script: script, model: model, replicas: UInt32(configuration.replicasPerScript),
                loaded: UInt32(scheduler.loadedCount(of: key)))
        }
    }

    /// A session's stream closed (the handler has let the session go).
    func sessionClosed(_ connection: SessionHandler) {
        connections[connection.serial] = nil
        metrics.sessions(admittedSessions, connections: connections.count)
        // Its pending frame has nobody to answer to; its recognition in flight is stopped so
        // that the engine is free for the others at once.
        let (_, inFlight) = scheduler.removeSession(connection.serial)
        if let inFlight { engines[inFlight.engine]?.cancellation.cancel(inFlight.serial) }
        let summary = connection.summary
        log(
            .info, "session closed",
            [
                "session": connection.sessionID, "received": String(summary.framesReceived),
                "recognized": String(summary.framesRecognized), "dropped": String(summary.framesDropped),
                "skipped": String(summary.framesSkipped), "failed": String(summary.framesFailed),
            ])
        if draining && connections.isEmpty { loop.stop() }
    }

    // MARK: Sessions

    /// Counts a session in, or says no when `--max-sessions` are running.
    func admit(_ connection: SessionHandler) -> Bool {
        guard admittedSessions < configuration.maxSessions else {
            metrics.refusedSession(reason: "max_sessions")
            return false
        }
        admittedSessions += 1
        metrics.sessions(admittedSessions, connections: connections.count)
        return true
    }

    /// A session admitted by `admit` ended (summary, fatal error or disconnect).
    func sessionEnded() {
        admittedSessions -= 1
        metrics.sessions(admittedSessions, connections: connections.count)
    }

    func register(_ connection: SessionHandler, settings: SessionSettings) {
        perform(scheduler.addSession(connection.serial, key: settings.engineKey, now: now))
    }

    func update(_ connection: SessionHandler, settings: SessionSettings) {
        perform(scheduler.changeKey(of: connection.serial, to: settings.engineKey, now: now))
    }

    // MARK: Frames

    func submit(_ frame: Frame, settings: SessionSettings, arrivedAt: Duration, from connection: SessionHandler) {
        let job = Job(frame: frame, settings: settings, received: arrivedAt)
        let outcome = scheduler.submit(job, for: connection.serial, maxAge: settings.maxFrameAge, now: now)
        if let displaced = outcome.displaced {
            // Replaced by a newer frame before an engine was free: answered at once, never decoded.
            connection.dropped(displaced.frame, reason: .replaced, timing: dropTiming(displaced))
        }
        perform(outcome.actions)
    }

    private func dropTiming(_ job: Job) -> Timing {
        Timing(clientTimestampMicros: job.frame.clientTimestampMicros, totalMicros: (now - job.received).micros)
    }

    /// Carries out what the scheduler decided, in its order.
    private func perform(_ actions: FrameScheduler<UInt64, Job>.Actions) {
        for id in actions.unload {
            engines.removeValue(forKey: id)?.thread.requestStop()
            log(.info, "engine unloaded", ["engine": id.description])
        }
        for id in actions.load { startEngine(id) }
        for (session, job) in actions.expired {
            connections[session]?.dropped(job.frame, reason: .tooOld, timing: dropTiming(job))
        }
        for (session, job, error) in actions.failed {
            connections[session]?.engineAnswered(
                .failed(error), frame: job.frame, settings: job.settings,
                timing: Timing(clientTimestampMicros: job.frame.clientTimestampMicros))
        }
        for dispatch in actions.dispatches { start(dispatch) }
        if !actions.load.isEmpty || !actions.unload.isEmpty || !actions.dispatches.isEmpty {
            metrics.pool(scheduler.pool)
        }
    }

    /// Loads an engine on a thread of its own; the loop hears when it is ready.
    private func startEngine(_ id: EngineID) {
        let pipelines = pipelines
        let cancellation = RecognitionCancellation()
        let server = LoopBound(self, loop: loop)
        let thread = EngineThread<FramePipeline>(
            name: "engine-\(id)",
            makeProcessor: { () throws -> FramePipeline in
                try pipelines.makePipeline(for: id.key, cancellation: cancellation)
            },
            onStart: { [loop] error in
                let failure = error.map { ($0 as? LegibleError) ?? LegibleError(.internal, "engine did not start") }
                loop.execute { server.value.engineStarted(id, failure: failure) }
            })
        engines[id] = Engine(thread: thread, cancellation: cancellation, loadStarted: clock.now)
        log(.debug, "engine loading", ["engine": id.description])
    }

    private func engineStarted(_ id: EngineID, failure: LegibleError?) {
        guard let engine = engines[id] else { return }
        if let failure {
            engines[id] = nil
            log(.error, "engine failed to load", ["engine": id.description, "reason": failure.message])
            perform(scheduler.engineFailed(id, error: failure, now: now))
            return
        }
        let milliseconds = Int((clock.now - engine.loadStarted).micros / 1000)
        log(.info, "engine loaded", ["engine": id.description, "ms": String(milliseconds)])
        if id.key == configuration.defaultKey && !draining { health.ready.store(true, ordering: .releasing) }
        perform(scheduler.engineLoaded(id, now: now))
        metrics.pool(scheduler.pool)
    }

    private func start(_ dispatch: FrameScheduler<UInt64, Job>.Dispatch) {
        let job = dispatch.job
        let engineID = dispatch.engine
        let session = dispatch.session
        let waited = dispatch.waited
        // The session's previous frame has been answered by now: its scene is current.
        let scene = connections[session]?.sceneSnapshot(now: now) ?? SceneSnapshot(now: now)
        let context = FrameContext(
            serial: dispatch.serial,
            deadline: configuration.frameDeadlineMillis > 0 ? .milliseconds(configuration.frameDeadlineMillis) : nil,
            scene: scene)
        let server = LoopBound(self, loop: loop)
        engines[engineID]!.thread.run { [loop] pipeline in
            let outcome =
                if let handOff = job.handOff {
                    pipeline.continueReading(handOff, settings: job.settings, context: context)
                } else {
                    pipeline.process(job.frame, settings: job.settings, context: context)
                }
            loop.execute {
                server.value.completed(engine: engineID, session: session, job: job, waited: waited, outcome: outcome)
            }
        }
    }

    private func completed(engine: EngineID, session: UInt64, job: Job, waited: Duration, outcome: FrameOutcome) {
        if case .handedOff(let handOff, let key) = outcome, connections[session] != nil {
            var rest = job
            rest.handOff = handOff
            perform(scheduler.handOff(engine: engine, job: rest, to: key, now: now))
            metrics.pool(scheduler.pool)
            return
        }
        if let connection = connections[session] {
            let timing = Timing(
                clientTimestampMicros: job.frame.clientTimestampMicros, queueMicros: waited.micros,
                totalMicros: (now - job.received).micros)
            let answer: EngineAnswer
            switch outcome {
            case .recognized(let recognition):
                metrics.decoded(job.frame.encoding?.known, micros: recognition.decodeMicros)
                answer = .recognized(recognition)
            case .skipped(let skip):
                metrics.decoded(job.frame.encoding?.known, micros: skip.decodeMicros)
                answer = .skipped(skip)
            case .handedOff:
                preconditionFailure("a handed-off frame is passed on above")
            case .failed(let error):
                log(.debug, "frame failed", ["session": connection.sessionID, "reason": error.message])
                answer = .failed(error)
            }
            connection.engineAnswered(answer, frame: job.frame, settings: job.settings, timing: timing)
        }
        perform(scheduler.completed(engine: engine, now: now))
        metrics.pool(scheduler.pool)
    }

    // MARK: Time

    /// Once a second (the loop's timer): the scheduler's idle engines and too-old frames, and
    /// every session's deadlines.
    func tick() {
        let now = self.now
        perform(scheduler.tick(now: now))
        for connection in Array(connections.values) { connection.tick(now: now) }
    }

    /// Runs `body` on the loop thread with the server, from any thread (the in-memory
    /// transport of the tests opens and feeds its streams this way).
    func onLoop(_ body: @escaping @Sendable (Server) -> Void) {
        let server = UnsafeTransfer(self)
        loop.execute { body(server.value) }
    }

    // MARK: Shutdown

    /// Asks this server to drain and stop, from any thread (a signal watcher, a test).
    public var shutdownTrigger: ShutdownTrigger { ShutdownTrigger(server: self) }

    /// Runs on the loop thread (through `ShutdownTrigger`); a second call does nothing.
    func beginShutdown(reason: String) {
        guard !draining else { return }
        draining = true
        health.ready.store(false, ordering: .releasing)
        log(.info, "draining", ["reason": reason, "sessions": String(connections.count)])
        for listener in listeners {
            loop.unregister(listener.socket.descriptor)
            listener.socket.close()
            if case .unix(let path) = listener.address { unlink(path) }
        }
        listeners.removeAll()
        for connection in Array(connections.values) { connection.shutdown() }
        if connections.isEmpty { loop.stop() }
    }

    deinit {
        for listener in listeners {
            if case .unix(let path) = listener.address { unlink(path) }
        }
    }

    static func makeSessionID(serial: UInt64) -> String {
        let random = UInt32.random(in: 0...UInt32.max)
        return "s\(serial)-" + String(random, radix: 16)
    }
}

/// Starts a server's graceful shutdown from any thread: the drain itself runs on the
/// server's loop, and `Server.run()` returns once every frame received has been answered.
public struct ShutdownTrigger: Sendable {
    private let server: UnsafeTransfer<Server>

    init(server: Server) { self.server = UnsafeTransfer(server) }

    /// Stop accepting, answer every frame received, send each session its summary, stop.
    /// `reason` goes to the log ("signal 15", "test"); calls after the first do nothing.
    public func drain(reason: String) {
        let server = self.server
        server.value.loop.execute { server.value.beginShutdown(reason: reason) }
    }
}

/// Carries the server into the loop's first task, before the loop thread is known (so a
/// `LoopBound` cannot be made yet); the task runs on the loop thread.
private struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
