internal import CLinux
internal import Glibc
public import LegibleCore
internal import LegibleDetection
internal import LegibleEngine
internal import LegibleEntities
internal import LegibleHTTP2
internal import LegibleSessions
internal import LegibleSockets
internal import LegibleTLS
internal import LegibleWire
internal import LegibleWireProtobuf

/// The server: listeners and connections on one event loop, admission, and the wiring between
/// session streams, their sessions and the engine pool (whose engines run on threads of their
/// own).
///
/// ```
///  socket ─▶ FramedTransport ─▶ SessionHandler ─▶ Session ─▶ EnginePool ─▶ FrameScheduler ─▶ EngineThread
///    ▲        (a SessionStream)       ▲                                                        │
///    └── stream.write ◀── Session ◀───┴── SessionHandler ◀── Server (routes) ◀── EnginePool ◀──┘
/// ```
public final class Server {
    let configuration: ServerConfiguration
    /// Whether the engines read detected lines (then a session of several scripts reads each
    /// line with its script's engine).
    private let readsLines: Bool
    let loop: EventLoop
    let log: Log
    let metrics = ServerMetrics()
    private let health: HealthState
    private var metricsEndpoint: MetricsEndpoint?
    private var listeners: [(address: ServerAddress, socket: Socket, handler: ListenerHandler)] = []
    /// The TLS of the TCP listeners (`--tls-cert`): replaced on `reloadCertificates`, kept by the
    /// connections made with it.
    private var tlsContext: TLSContext?
    /// Every open session stream, by serial.
    private var connections: [UInt64: SessionHandler] = [:]
    /// Connections accepted whose protocol is not known yet, by id.
    private var sniffing: [UInt64: ProtocolSniffingHandler] = [:]
    /// HTTP/2 connections, by id (their calls are in `connections`).
    private var http2Connections: [UInt64: HTTP2Transport] = [:]
    /// How many of `connections` are calls on an HTTP/2 connection.
    private var http2Calls = 0
    /// Open client connections, whatever their protocol.
    private var connectionCount: Int {
        connections.count - http2Calls + http2Connections.count + sniffing.count
    }
    private var nextSerial: UInt64 = 0
    /// The engines and the scheduler that gives them frames.
    private let engines: EnginePool
    /// Routes the engines' answers to their sessions (the pool's delegate).
    private let engineAnswers: EngineAnswers
    private var timer: RepeatingTimer?
    private var draining = false
    private var admittedSessions = 0
    /// Connections turned away at --max-connections or --max-connections-per-peer.
    private(set) var refusedConnections: UInt64 = 0
    /// Refused connections still open to be told why in the protocol they speak (sniffing, or
    /// HTTP/2 until their first call is answered), by id; never admitted. At most
    /// `maxConnectionsBeingRefused`, each for at most `refusalSeconds`: past that, a refused
    /// connection is closed at once.
    private var beingRefused: Set<UInt64> = []
    static let maxConnectionsBeingRefused = 16
    static let refusalSeconds = 1
    /// Bytes of messages still arriving, across connections (`--max-buffered-bytes`).
    let readBudget: ReadBudget
    /// Sockets of sessions the server ended, read until their client closes (`LingeringCloses`).
    let lingeringCloses: LingeringCloses
    /// Which accepted connections are open, unstarted, and from whom.
    private var admission: ConnectionAdmission<Socket.Peer>
    private let installedModels: Set<String>
    private let availableScripts: [Script]
    /// Time since the server started (or the configuration's clock): the clock of the
    /// scheduler and the sessions.
    private let elapsed: () -> Duration
    /// The client deadlines every session keeps.
    private let deadlines: ClientDeadlines

    /// Checks the models and binds every listener; throws what stops the server from starting.
    ///
    /// The process's signal state is the caller's: a peer that hangs up must not kill it, so
    /// SIGPIPE should be ignored (legibled does so, and turns SIGTERM and SIGINT into
    /// `shutdownTrigger.drain`).
    public init(configuration: ServerConfiguration) throws(LegibleError) {
        self.configuration = configuration
        admission = ConnectionAdmission(
            limits: .init(
                maxConnections: configuration.maxConnections, maxUnstarted: configuration.maxUnstartedConnections,
                maxPerPeer: configuration.maxConnectionsPerPeer))
        readBudget = ReadBudget(pool: configuration.maxBufferedBytes, metrics: metrics)
        let pipelines = PipelineFactory(settings: configuration.pipelineSettings)
        readsLines = pipelines.readsLines
        self.log = Log(minimum: configuration.logLevel, format: configuration.logFormat)
        self.health = HealthState(metrics: metrics.registry)
        self.loop = try EventLoop()
        lingeringCloses = LingeringCloses(loop: loop)
        let started = ContinuousClock.now
        let elapsed = configuration.clock ?? { ContinuousClock.now - started }
        self.elapsed = elapsed
        self.deadlines = ClientDeadlines(
            firstMessage: .seconds(configuration.firstMessageSeconds), message: .seconds(configuration.messageSeconds),
            idle: .seconds(configuration.idleSeconds), writeStall: .seconds(configuration.writeStallSeconds))
        let inventory = try ModelInventory(tessdata: configuration.tessdata, models: configuration.models)
        installedModels = inventory.installed
        availableScripts = inventory.availableScripts
        engines = EnginePool(
            pipelines: pipelines,
            workers: configuration.engineWorkers.map { [log] command in
                var command = command
                // What Tesseract, Leptonica or a crash report write in a worker is logged, one
                // event per line (JSON logs stay one object per line).
                command.errorLine = { processID, line in
                    log(.warning, "engine worker wrote", ["pid": String(processID), "line": line])
                }
                // Frames reach a worker through shared memory: room for the largest frame and
                // for the largest gray image handed between engines, with their small values.
                command.sharedMemoryBytes = max(configuration.maxMessageBytes, configuration.maxPixels) + (64 << 10)
                return WorkerLauncher(command: command, spareKeys: [configuration.defaultKey])
            },
            policy: PoolPolicy(
                workers: configuration.workers, replicasPerScript: configuration.replicasPerScript,
                idleTimeout: configuration.engineIdleSeconds > 0 ? .seconds(configuration.engineIdleSeconds) : nil,
                keepLoaded: [configuration.defaultKey], maxCustomEngines: configuration.maxCustomEngines,
                customEngineMegabytes: configuration.customEngineMegabytes),
            frameDeadline: configuration.frameDeadlineMillis > 0
                ? .milliseconds(configuration.frameDeadlineMillis) : nil,
            loop: loop, now: elapsed)
        log(
            .info, "models",
            [
                "scripts": availableScripts.map(\.description).joined(separator: ","),
                "installed": installedModels.sorted().joined(separator: ","),
            ])
        engineAnswers = EngineAnswers()
        engineAnswers.server = self
        engines.delegate = engineAnswers
        if let files = configuration.tls { tlsContext = try Self.tlsContext(files) }
        try bindListeners()
    }

    private func bindListeners() throws(LegibleError) {
        if let address = configuration.metricsAddress {
            switch ExposurePolicy.metrics(address, allowRemote: configuration.allowRemoteMetrics) {
            case .allow: break
            case .warn(let warning): log(.warning, warning, ["address": "\(address)"])
            case .refuse(let error): throw error
            }
        }
        for address in configuration.listen {
            switch ExposurePolicy.listener(
                address, tokensRequired: configuration.accessTokens.isRequired,
                mutualTLS: configuration.tls?.clientCA != nil,
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
            // TLS on TCP listeners; a Unix socket's peers are local users, checked by file mode.
            var tls = false
            if case .tcp = address { tls = tlsContext != nil }
            listeners.append((shown, socket, ListenerHandler(socket: socket, tls: tls)))
        }
        lingeringCloses.onEmpty = { [unowned self] in self.stopIfDrained() }
    }

    /// The default script's engine has loaded and the server is not draining (/readyz, and
    /// gRPC's health service).
    var isReady: Bool { health.ready.load(ordering: .acquiring) }

    /// Readiness changed: health watches on HTTP/2 connections hear it.
    private func readinessChanged() {
        for transport in Array(http2Connections.values) { transport.healthChanged() }
    }

    /// Time since the server started: the clock of the scheduler and the sessions (the
    /// configuration's, when it gives one).
    var now: Duration { elapsed() }

    /// Serves on the calling thread until `shutdownTrigger.drain` is called, then drains:
    /// stops accepting, answers every frame received, sends each session its summary, and
    /// returns.
    public func run() throws(LegibleError) {
        try startServing()
        loop.run()
        timer?.cancel()
        engines.stopAll()
        log(.info, "stopped")
    }

    private func startServing() throws(LegibleError) {
        for listener in listeners {
            listener.handler.server = self
            try loop.register(listener.socket.descriptor, handler: listener.handler)
            log(.info, "listening on \(listener.address)" + (listener.handler.tls ? " (TLS)" : ""))
        }
        timer = try RepeatingTimer(loop: loop, interval: .seconds(1)) { [unowned self] in self.tick() }
        if let address = configuration.metricsAddress {
            let endpoint = try MetricsEndpoint(address: address, state: health)
            metricsEndpoint = endpoint
            var shown = address
            if case .tcp(let host, _) = address { shown = .tcp(host: host, port: endpoint.port) }
            log(.info, "metrics on \(shown)")
        }
        metrics.pool(engines.state)
        // The default script's engine loads as soon as the loop runs, on its own thread;
        // frames wait for it.
        let server = UnsafeTransfer(self)
        loop.execute { server.value.engines.preload(server.value.configuration.defaultKey) }
    }

    // MARK: Connections

    /// Reads the certificate and key (and client CA): a context for new TLS connections.
    private static func tlsContext(_ files: TLSFiles) throws(LegibleError) -> TLSContext {
        try TLSContext(certificateChain: files.certificateChain, privateKey: files.privateKey, clientCA: files.clientCA)
    }

    /// Reads the TLS files again (SIGHUP): new connections use them, open ones keep theirs. A
    /// file that does not load is logged and the certificates in use stay.
    func reloadCertificates() {
        guard let files = configuration.tls else { return }
        do throws(LegibleError) {
            tlsContext = try Self.tlsContext(files)
            log(.info, "TLS certificates reloaded", ["cert": files.certificateChain])
        } catch {
            log(.error, "TLS certificates not reloaded; the previous ones stay", ["reason": error.message])
        }
    }

    func accept(from listener: Socket, tls: Bool) {
        while !draining {
            let socket: Socket
            do throws(LegibleError) {
                guard let accepted = try listener.accept() else { return }
                socket = accepted
            } catch {
                log(.warning, "accept failed", ["reason": error.message])
                return
            }
            // A connection the kernel cannot place counts as a peer of its own.
            let peer = socket.peer() ?? .address("unknown fd \(socket.descriptor)")
            var refusal: String?
            switch admission.arrive(from: peer) {
            case .refuse(let why):
                refusedConnections += 1
                metrics.refusedConnection()
                let reason =
                    why == .serverFull
                    ? "the server is at its limit of connections; try again later"
                    : "\(peer) has --max-connections-per-peer connections open; try again later"
                guard beingRefused.count < Self.maxConnectionsBeingRefused else {
                    refuseAtOnce(socket, tls: tls, reason)
                    continue
                }
                refusal = reason
            case .admit(let evicting):
                for id in evicting { evict(id) }
            }
            if tls, let tlsContext {
                do throws(LegibleError) {
                    socket.filter = try tlsContext.serverSession(on: socket)
                } catch {
                    log(.warning, "cannot start TLS on a new connection", ["reason": error.message])
                    socket.close()
                    continue
                }
            }
            nextSerial += 1
            let sniffer = ProtocolSniffingHandler(
                id: nextSerial, socket: socket, acceptedAt: now, refusal: refusal, server: self)
            do throws(LegibleError) {
                try loop.register(socket.descriptor, handler: sniffer)
            } catch {
                log(.warning, "cannot watch a new connection", ["reason": error.message])
                socket.close()
                continue
            }
            sniffing[sniffer.id] = sniffer
            if refusal != nil {
                beingRefused.insert(sniffer.id)
            } else {
                admission.opened(sniffer.id, from: peer)
            }
            metrics.sessions(admittedSessions, connections: connectionCount)
        }
    }

    /// Closes connection `id`, evicted by admission to make room for a newer one: it had not
    /// started a session.
    private func evict(_ id: UInt64) {
        metrics.evictedConnection()
        if let transport = http2Connections[id] {
            transport.close(reason: "evicted")
        } else {
            // One that has not spoken yet is told why as the framed protocol would tell it.
            if let sniffer = sniffing[id] { sniffed(sniffer, as: .framed, reason: "") }
            // Failed as a broken stream is: told why (fatal), then closed.
            connections[id]?.failed(
                LegibleError(
                    .resourceExhausted,
                    "closed to make room for a newer connection: no session was started on this one; "
                        + "send StartSession as soon as you connect"))
        }
    }

    enum WireProtocol { case framed, http2 }

    /// A new connection's first bytes told its protocol (`nil`: they did not, or it closed):
    /// the socket goes to that protocol's transport with the bytes read so far.
    func sniffed(_ sniffer: ProtocolSniffingHandler, as spoken: WireProtocol?, reason: String) {
        guard sniffing.removeValue(forKey: sniffer.id) != nil else { return }
        let socket = sniffer.socket
        loop.unregister(socket.descriptor)
        do throws(LegibleError) {
            switch spoken {
            case nil:
                log(.debug, "connection closed before a protocol was told", ["reason": reason])
                socket.close()
                admission.closed(sniffer.id)
                beingRefused.remove(sniffer.id)
            case .framed:
                if let reason = sniffer.refusal {
                    sendFramedRefusal(on: socket, reason)
                    socket.close()
                    beingRefused.remove(sniffer.id)
                    break
                }
                let transport = FramedTransport(
                    socket: socket, maxMessageBytes: configuration.maxMessageBytes,
                    startMessageBytes: SessionStateMachine.maxStartSessionBytes,
                    maxWriteQueueBytes: configuration.maxWriteQueueBytes, server: self)
                try loop.register(socket.descriptor, handler: transport)
                adopt(transport, serial: sniffer.id, connection: sniffer.id, connectedAt: sniffer.acceptedAt)
                transport.start(with: sniffer.firstBytes)
            case .http2:
                let transport = try HTTP2Transport(
                    id: sniffer.id, socket: socket, refusing: sniffer.refusal, server: self)
                try loop.register(socket.descriptor, handler: transport)
                http2Connections[sniffer.id] = transport
                log(.debug, "HTTP/2 connection", ["connection": String(sniffer.id)])
                transport.start(with: sniffer.firstBytes)
            }
        } catch {
            log(.warning, "cannot serve a new connection", ["reason": error.message])
            socket.close()
            admission.closed(sniffer.id)
            beingRefused.remove(sniffer.id)
        }
        metrics.sessions(admittedSessions, connections: connectionCount)
        stopIfDrained()
    }

    /// An HTTP/2 connection closed (its calls' sessions are closed already).
    func http2Closed(_ transport: HTTP2Transport, reason: String) {
        http2Connections[transport.id] = nil
        admission.closed(transport.id)
        beingRefused.remove(transport.id)
        metrics.sessions(admittedSessions, connections: connectionCount)
        log(.debug, "HTTP/2 connection closed", ["connection": String(transport.id), "reason": reason])
        stopIfDrained()
    }

    /// While draining: stops the loop once no connection is left.
    /// Lingering sockets are waited for too (at most `LingeringCloses.seconds`): exiting would
    /// close them over the client's last bytes, unread, and a client that had not yet read the
    /// server's last answers could lose them to the reset.
    private func stopIfDrained() {
        if draining && connections.isEmpty && http2Connections.isEmpty && sniffing.isEmpty
            && lingeringCloses.count == 0
        {
            loop.stop()
        }
    }

    /// Turns a refused connection away without waiting to learn its protocol (more than
    /// `maxConnectionsBeingRefused` are being refused): the reason goes as the framed
    /// protocol's Error (an HTTP/2 client sees the connection closed); on a TLS listener, where
    /// cleartext would be garbage before the handshake, it is only closed.
    private func refuseAtOnce(_ socket: Socket, tls: Bool, _ reason: String) {
        if !tls { sendFramedRefusal(on: socket, reason) }
        socket.close()
    }

    /// The framed protocol's fatal RESOURCE_EXHAUSTED Error saying `reason`, best effort: a
    /// client that retries sees why, not a reset. (HTTP/2 clients hear it as each call's
    /// status: `HTTP2Transport(refusing:)`.)
    private func sendFramedRefusal(on socket: Socket, _ reason: String) {
        let refusal = MessageFraming.frame(
            ProtobufCodec.encode(.error(WireError(LegibleError(.resourceExhausted, reason), fatal: true))))
        _ = refusal.withUnsafeBytes { try? socket.send($0) }
    }

    /// Starts a session on `stream`, a new stream of any transport: from now on it reports
    /// to the session's handler. On the loop thread.
    @discardableResult
    public func adopt(_ stream: any SessionStream) -> SessionHandler {
        nextSerial += 1
        return adopt(stream, serial: nextSerial, connection: nextSerial, connectedAt: now)
    }

    /// Starts a session on a call of HTTP/2 connection `connection`.
    @discardableResult
    func adopt(_ stream: any SessionStream, connection: UInt64) -> SessionHandler {
        nextSerial += 1
        http2Calls += 1
        return adopt(stream, serial: nextSerial, connection: connection, connectedAt: now)
    }

    @discardableResult
    private func adopt(
        _ stream: any SessionStream, serial: UInt64, connection: UInt64, connectedAt: Duration
    ) -> SessionHandler {
        var session = SessionConfiguration(
            sessionID: Server.makeSessionID(serial: serial), serverVersion: ServerConfiguration.version,
            limits: ServerLimits(
                maxMessageBytes: UInt64(configuration.maxMessageBytes), pendingFramesPerSession: 1,
                workers: UInt32(configuration.workers), replicasPerScript: UInt32(configuration.replicasPerScript),
                maxSessions: UInt32(clamping: configuration.maxSessions),
                frameDeadlineMillis: UInt32(clamping: configuration.frameDeadlineMillis)),
            availableScripts: availableScripts, models: configuration.models, installedModels: installedModels,
            engines: engineInfo(), accessTokens: configuration.accessTokens)
        // With the detector a session of several scripts reads each line by its script's engine
        // (text and document mode); without it (`--detector tesseract`) whole frames by one
        // engine of all its models.
        session.readsLinesByScript = readsLines
        session.captureGoalCheck = { goals throws(LegibleError) in _ = try CaptureFinder(goals: goals) }
        let handler = SessionHandler(
            serial: serial, connectionID: connection,
            session: Session(configuration: session, deadlines: deadlines, connectedAt: connectedAt), stream: stream,
            server: self)
        stream.handler = handler
        connections[serial] = handler
        metrics.sessions(admittedSessions, connections: connectionCount)
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
                loaded: UInt32(engines.loadedCount(of: key)))
        }
    }

    /// The handler of the open session stream `serial`.
    func handler(of serial: UInt64) -> SessionHandler? { connections[serial] }

    /// A session's stream closed (the handler has let the session go).
    func sessionClosed(_ connection: SessionHandler) {
        connections[connection.serial] = nil
        // An HTTP/2 connection outlives its calls: it leaves admission when it closes.
        if connection.connectionID == connection.serial {
            admission.closed(connection.serial)
        } else {
            http2Calls -= 1
        }
        metrics.sessions(admittedSessions, connections: connectionCount)
        engines.removeSession(connection.serial)
        let summary = connection.summary
        log(
            .info, "session closed",
            [
                "session": connection.sessionID, "received": String(summary.framesReceived),
                "recognized": String(summary.framesRecognized), "dropped": String(summary.framesDropped),
                "skipped": String(summary.framesSkipped), "failed": String(summary.framesFailed),
            ])
        stopIfDrained()
    }

    // MARK: Sessions

    /// Counts a session in, or says no when `--max-sessions` are running.
    func admit(_ connection: SessionHandler) -> Bool {
        guard admittedSessions < configuration.maxSessions else {
            metrics.refusedSession(reason: "max_sessions")
            return false
        }
        admittedSessions += 1
        admission.started(connection.connectionID)
        metrics.sessions(admittedSessions, connections: connectionCount)
        return true
    }

    /// A session admitted by `admit` ended (summary, fatal error or disconnect).
    func sessionEnded() {
        admittedSessions -= 1
        metrics.sessions(admittedSessions, connections: connectionCount)
    }

    func register(_ connection: SessionHandler, settings: SessionSettings) {
        engines.addSession(connection.serial, key: settings.engineKey)
    }

    func update(_ connection: SessionHandler, settings: SessionSettings) {
        engines.changeKey(of: connection.serial, to: settings.engineKey)
    }

    func submit(_ frame: Frame, settings: SessionSettings, arrivedAt: Duration, from connection: SessionHandler) {
        engines.submit(frame, settings: settings, arrivedAt: arrivedAt, session: connection.serial)
    }

    // MARK: Time

    /// Once a second (the loop's timer): the scheduler's idle engines and too-old frames, and
    /// every session's deadlines.
    func tick() {
        let now = self.now
        engines.tick()
        let unclosed = lingeringCloses.tick()
        if unclosed > 0 {
            log(
                .debug, "closed connections whose clients had not closed them",
                ["count": String(unclosed), "seconds": String(LingeringCloses.seconds)])
        }
        for connection in Array(connections.values) { connection.tick(now: now) }
        for transport in Array(http2Connections.values) { transport.tick(now: now) }
        let firstMessage = Duration.seconds(configuration.firstMessageSeconds)
        let refusal = Duration.seconds(Self.refusalSeconds)
        for sniffer in Array(sniffing.values)
        where now - sniffer.acceptedAt >= (sniffer.refusal == nil ? firstMessage : refusal) {
            // Read what may have arrived since the last wake-up first.
            sniffer.handleEvents(readable: true, writable: false, hangup: false)
            guard sniffing[sniffer.id] != nil else { continue }
            // Silent past the first-message deadline: answered as the framed protocol answers
            // a client that never sends StartSession (DEADLINE_EXCEEDED, then closed).
            sniffed(sniffer, as: .framed, reason: "")
            connections[sniffer.id]?.tick(now: now)
        }
    }

    /// Runs `body` on the loop thread with the server, from any thread (the in-memory
    /// transport of the tests opens and feeds its streams this way).
    public func onLoop(_ body: @escaping @Sendable (Server) -> Void) {
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
        readinessChanged()
        log(.info, "draining", ["reason": reason, "sessions": String(connections.count)])
        for listener in listeners {
            loop.unregister(listener.socket.descriptor)
            listener.socket.close()
            if case .unix(let path) = listener.address { unlink(path) }
        }
        listeners.removeAll()
        for sniffer in Array(sniffing.values) { sniffed(sniffer, as: nil, reason: "draining") }
        for transport in Array(http2Connections.values) { transport.drain() }
        for connection in Array(connections.values) { connection.shutdown() }
        stopIfDrained()
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

// MARK: - The engines' answers

extension Server {
    fileprivate func engineAnswered(
        _ answer: EngineAnswer, session: UInt64, frame: Frame, settings: SessionSettings, timing: Timing
    ) {
        guard let connection = connections[session] else { return }
        switch answer {
        case .recognized(let recognition): metrics.decoded(frame.encoding?.known, micros: recognition.decodeMicros)
        case .skipped(let skip): metrics.decoded(frame.encoding?.known, micros: skip.decodeMicros)
        case .failed(let error):
            log(.debug, "frame failed", ["session": connection.sessionID, "reason": error.message])
        }
        connection.engineAnswered(answer, frame: frame, settings: settings, timing: timing)
    }

    fileprivate func engineEvent(_ event: EnginePool.Event) {
        switch event {
        case .loading(let id): log(.debug, "engine loading", ["engine": id.description])
        case .loaded(let id, let milliseconds, let megabytes):
            if let megabytes {
                log(
                    .info, "engine loaded",
                    ["engine": id.description, "ms": String(milliseconds), "mb": String(megabytes)])
            } else {
                log(.info, "engine loaded", ["engine": id.description, "ms": String(milliseconds)])
            }
            if id.key == configuration.defaultKey && !draining {
                health.ready.store(true, ordering: .releasing)
                readinessChanged()
            }
        case .failedToLoad(let id, let error):
            log(.error, "engine failed to load", ["engine": id.description, "reason": error.message])
        case .unloaded(let id): log(.info, "engine unloaded", ["engine": id.description])
        case .crashed(let id, let crash):
            log(.error, "engine crashed", ["engine": id.description, "reason": crash.description])
            metrics.engineCrashed(id.key)
        case .workerStopped(let id, let stopped):
            log(.warning, "engine worker killed", ["engine": id.description, "reason": stopped.description])
            metrics.engineWorkerStopped(id.key, reason: stopped.reason)
        case .changed(let state): metrics.pool(state)
        }
    }
}

/// Hears the engine pool for the server (whose public type cannot conform to the engine
/// module's protocol): answers and drops go to their session's handler, engine events to the
/// log, the metrics and readiness. On the loop thread.
private final class EngineAnswers: EnginePoolDelegate {
    unowned var server: Server!

    func enginePool(
        answered answer: EngineAnswer, session: UInt64, frame: Frame, settings: SessionSettings, timing: Timing
    ) {
        server.engineAnswered(answer, session: session, frame: frame, settings: settings, timing: timing)
    }

    func enginePool(dropped frame: Frame, session: UInt64, reason: Session.DropReason, timing: Timing) {
        server.handler(of: session)?.dropped(frame, reason: reason, timing: timing)
    }

    func enginePool(sceneOf session: UInt64, now: Duration) -> SceneSnapshot? {
        server.handler(of: session)?.sceneSnapshot(now: now)
    }

    func enginePool(_ event: EnginePool.Event) { server.engineEvent(event) }
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

    /// Read the TLS certificate, key and client CA again (SIGHUP); open connections go on.
    public func reloadCertificates() {
        let server = self.server
        server.value.loop.execute { server.value.reloadCertificates() }
    }
}

/// Carries the server into the loop's first task, before the loop thread is known (so a
/// `LoopBound` cannot be made yet); the task runs on the loop thread.
private struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
