internal import CLinux
internal import Glibc
public import LegibleCore
internal import LegibleImaging
internal import LegibleSessions
internal import LegibleSockets
internal import LegibleTesseract
public import LegibleWire

/// Everything `legibled` is configured with.
public struct ServerConfiguration: Sendable {
    public var listen: [ServerAddress] = ServerAddress.defaults
    /// File mode of unix socket files.
    public var socketMode: UInt32 = 0o600
    public var tessdata: String = TesseractModels.defaultTessdata
    /// Recognitions running at once across all scripts.
    public var workers: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    public var replicasPerScript: Int = 1
    public var maxMessageBytes: Int = 16 << 20
    /// Decoded pixels allowed per frame (a decompression-bomb cap).
    public var maxPixels: Int = 40_000_000
    /// The Tesseract model read for the Latin script.
    public var latinModel: String = "eng"
    public var logLevel: Log.Level = .info
    public static let version = "0.1.0"

    public init() {}
}

/// The server: listeners and connections on one event loop, engines on threads of their own,
/// and the scheduler between them.
///
/// ```
///  socket ─▶ Connection ─▶ SessionStateMachine ─▶ Server.submit ─▶ FrameScheduler ─▶ EngineThread
///    ▲                                                                                  │
///    └──────────── Connection.answer ◀── Server.completed ◀── loop.execute ◀────────────┘
/// ```
public final class Server {
    let configuration: ServerConfiguration
    let loop: EventLoop
    let log: Log
    private var listeners: [(address: ServerAddress, socket: Socket, handler: ListenerHandler)] = []
    private var connections: [UInt64: Connection] = [:]
    private var nextSerial: UInt64 = 0
    private var scheduler: FrameScheduler<UInt64, Job>
    private var engines: [EngineID: EngineThread<FramePipeline>] = [:]
    private var signals: SignalHandler?
    private var draining = false
    private let clock = ContinuousClock()
    /// When the frame being handled now was read off its socket (its Timing starts there).
    /// Set by `frameArrived` just before the session machine acts on that frame.
    private var arrival: ContinuousClock.Instant?

    struct Job: Sendable {
        var frame: Frame
        var settings: SessionSettings
        var received: ContinuousClock.Instant
    }

    /// Loads the engines and binds every listener; throws what stops the server from starting.
    public init(configuration: ServerConfiguration) throws(LegibleError) {
        // Engine threads inherit the signal mask: block the shutdown signals before any thread
        // starts, so that they arrive only through the loop's signalfd.
        SignalHandler.blockShutdownSignals()
        self.configuration = configuration
        self.log = Log(minimum: configuration.logLevel)
        self.loop = try EventLoop()
        var engineIDs: [EngineID] = []
        for replica in 0..<configuration.replicasPerScript {
            let id = EngineID(script: .latin, replica: replica)
            let (tessdata, model, maxPixels) = (configuration.tessdata, configuration.latinModel, configuration.maxPixels)
            do {
                engines[id] = try EngineThread(name: "engine-\(id)") { () throws(LegibleError) -> FramePipeline in
                    let engine = try TesseractEngine(tessdata: tessdata, model: model, script: .latin)
                    return try FramePipeline(
                        recognizer: engine, tessdata: tessdata, limits: ImageLimits(maxPixels: maxPixels))
                }
            } catch let error as LegibleError {
                throw error
            } catch {
                throw LegibleError(.internal, "engine \(id) did not start", cause: nil)
            }
            engineIDs.append(id)
            log(.info, "engine loaded", ["engine": id.description, "model": model])
        }
        scheduler = FrameScheduler(engines: engineIDs, workers: configuration.workers)
        try bindListeners()
    }

    private func bindListeners() throws(LegibleError) {
        for address in configuration.listen {
            let socket = try Socket.listen(on: address, mode: configuration.socketMode)
            var shown = address
            if case .tcp(let host, 0) = address, let port = socket.boundPort() { shown = .tcp(host: host, port: port) }
            listeners.append((shown, socket, ListenerHandler(socket: socket)))
        }
    }

    /// Serves until SIGTERM or SIGINT, then drains: stops accepting, answers every frame
    /// received, sends each session its summary, and returns.
    public func run() throws(LegibleError) {
        try startServing()
        loop.run()
        for engine in engines.values { engine.stop() }
        log(.info, "stopped")
    }

    private func startServing() throws(LegibleError) {
        for listener in listeners {
            listener.handler.server = self
            try loop.register(listener.socket.descriptor, handler: listener.handler)
            log(.info, "listening on \(listener.address)")
        }
        let signals = try SignalHandler(server: self)
        try loop.register(signals.descriptor, handler: signals)
        self.signals = signals
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
            nextSerial += 1
            let session = SessionConfiguration(
                sessionID: Server.makeSessionID(serial: nextSerial), serverVersion: ServerConfiguration.version,
                limits: ServerLimits(
                    maxMessageBytes: UInt64(configuration.maxMessageBytes), pendingFramesPerSession: 1,
                    workers: UInt32(configuration.workers), replicasPerScript: UInt32(configuration.replicasPerScript)),
                availableScripts: [.latin])
            let connection = Connection(
                serial: nextSerial, socket: socket, peer: "", server: self, configuration: session,
                maxMessageBytes: configuration.maxMessageBytes)
            do throws(LegibleError) {
                try loop.register(socket.descriptor, handler: connection)
            } catch {
                log(.warning, "cannot watch a new connection", ["reason": error.message])
                continue
            }
            connections[nextSerial] = connection
            log(.debug, "connection accepted", ["session": connection.sessionID])
        }
    }

    func connectionClosed(_ connection: Connection) {
        connections[connection.serial] = nil
        // Its pending frame, if any, has nobody to answer to.
        _ = scheduler.removeSession(connection.serial)
        let summary = connection.summary
        do {
            log(
                .info, "session closed",
                [
                    "session": connection.sessionID, "received": String(summary.framesReceived),
                    "recognized": String(summary.framesRecognized), "dropped": String(summary.framesDropped),
                    "failed": String(summary.framesFailed),
                ])
        }
        if draining && connections.isEmpty { loop.stop() }
    }

    // MARK: Frames

    func frameArrived() {
        arrival = clock.now
    }

    func register(_ connection: Connection, settings: SessionSettings) {
        scheduler.addSession(connection.serial, script: settings.script)
    }

    func submit(_ frame: Frame, settings: SessionSettings, from connection: Connection) {
        let job = Job(frame: frame, settings: settings, received: arrival ?? clock.now)
        let outcome = scheduler.submit(job, for: connection.serial)
        if let displaced = outcome.displaced {
            // Replaced by a newer frame before an engine was free: answered at once, never decoded.
            connection.answer(
                FrameResult(
                    frameID: displaced.frame.frameID, status: .dropped,
                    timing: Timing(clientTimestampMicros: displaced.frame.clientTimestampMicros)))
        }
        start(outcome.dispatches)
    }

    private func start(_ dispatches: [FrameScheduler<UInt64, Job>.Dispatch]) {
        for dispatch in dispatches {
            let job = dispatch.job
            let engineID = dispatch.engine
            let session = dispatch.session
            let queued = clock.now - job.received
            let server = LoopBound(self, loop: loop)
            engines[engineID]!.run { [loop] pipeline in
                let outcome = pipeline.process(job.frame, settings: job.settings)
                loop.execute {
                    server.value.completed(
                        engine: engineID, session: session, job: job, queued: queued, outcome: outcome)
                }
            }
        }
    }

    private func completed(engine: EngineID, session: UInt64, job: Job, queued: Duration, outcome: FrameOutcome) {
        if let connection = connections[session] {
            var timing = Timing(
                clientTimestampMicros: job.frame.clientTimestampMicros, queueMicros: queued.micros,
                totalMicros: (clock.now - job.received).micros)
            let result: FrameResult
            switch outcome {
            case .recognized(let recognition):
                timing.decodeMicros = recognition.decodeMicros
                timing.recognizeMicros = recognition.recognizeMicros
                result = FrameResult(
                    frameID: job.frame.frameID, status: .recognized, text: recognition.text, timing: timing,
                    quality: recognition.quality, orientation: recognition.orientation)
            case .failed(let error):
                log(.debug, "frame failed", ["session": connection.sessionID, "reason": error.message])
                result = FrameResult(
                    frameID: job.frame.frameID, status: .failed, timing: timing,
                    error: WireError(error, frameID: job.frame.frameID))
            }
            connection.answer(result)
        }
        start(scheduler.completed(engine: engine, session: session))
    }

    // MARK: Shutdown

    func beginShutdown(signal: Int32) {
        guard !draining else { return }
        draining = true
        log(.info, "draining", ["signal": String(signal), "sessions": String(connections.count)])
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

/// Accepts connections on one listening socket.
final class ListenerHandler: EventHandler {
    let socket: Socket
    weak var server: Server?
    init(socket: Socket) { self.socket = socket }
    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        server?.accept(from: socket)
    }
}

/// SIGTERM and SIGINT through a signalfd, so that shutdown starts on the loop thread.
final class SignalHandler: EventHandler {
    let descriptor: Int32
    private unowned let server: Server

    static func shutdownSignals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }

    static func blockShutdownSignals() {
        var set = shutdownSignals()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    init(server: Server) throws(LegibleError) {
        var set = SignalHandler.shutdownSignals()
        descriptor = signalfd(-1, &set, Int32(SFD_NONBLOCK) | Int32(SFD_CLOEXEC))
        guard descriptor >= 0 else { throw .system("signalfd") }
        self.server = server
    }

    deinit { close(descriptor) }

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        var info = signalfd_siginfo()
        while read(descriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            server.beginShutdown(signal: Int32(info.ssi_signo))
        }
    }
}
