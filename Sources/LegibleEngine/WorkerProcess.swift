internal import Foundation
internal import Glibc
public import LegibleCore
internal import Synchronization

/// How legibled starts an engine worker: its own executable, with its own arguments plus the
/// worker flag, so that the worker builds the same pipelines from the same settings.
public struct WorkerCommand: Sendable {
    public var executable: String
    /// The worker's whole argument vector, its name (`argv[0]`) first.
    public var arguments: [String]
    /// Hears each line the worker writes to its standard error (what Tesseract, Leptonica or
    /// the Swift runtime's crash report write there), with the worker's pid, on a thread of
    /// that worker's own; nil: the worker shares legibled's standard error.
    public var errorLine: (@Sendable (_ processID: Int32, _ line: String) -> Void)?
    /// The size of each worker's `SharedFrameMemory`, which carries the frames it is asked to
    /// read: at least the largest frame (--max-message-bytes) and the largest gray image handed
    /// between engines (--max-pixels); 0: frames go down the socketpair instead.
    public var sharedMemoryBytes: Int

    public init(
        executable: String, arguments: [String],
        errorLine: (@Sendable (_ processID: Int32, _ line: String) -> Void)? = nil, sharedMemoryBytes: Int = 0
    ) {
        self.executable = executable
        self.arguments = arguments
        self.errorLine = errorLine
        self.sharedMemoryBytes = sharedMemoryBytes
    }

    /// The descriptor of the socketpair's end in a worker.
    public static let channelDescriptor: Int32 = 3
    /// The descriptor of the shared frame memory in a worker (absent when `sharedMemoryBytes` is 0).
    public static let sharedMemoryDescriptor: Int32 = 4
}

/// Why a worker process ended without being asked to.
public struct EngineCrash: Error, Sendable, CustomStringConvertible {
    public var processID: Int32
    /// The signal that ended it (SIGABRT for a failed assert, SIGSEGV, SIGKILL from outside).
    public var signal: Int32?
    public var exitStatus: Int32?

    public var description: String {
        if let signal { return "engine process \(processID) ended by signal \(signal) (\(signalName(signal)))" }
        return "engine process \(processID) exited with status \(exitStatus ?? -1)"
    }

    private func signalName(_ number: Int32) -> String {
        switch number {
        case SIGABRT: "SIGABRT"
        case SIGSEGV: "SIGSEGV"
        case SIGKILL: "SIGKILL"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGILL: "SIGILL"
        default: "signal \(number)"
        }
    }
}

/// Length-prefixed `WorkerCodec` messages over one end of a socketpair (blocking; the caller
/// polls with a timeout to stay responsive to cancels and deadlines).
final class WorkerChannel: Sendable {
    let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// The other side has gone (the process ended, or closed its end).
    struct Closed: Error {}

    func send(_ bytes: [UInt8]) throws(Closed) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + sent, $0.count - sent) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Closed()
            }
            sent += count
        }
    }

    /// Waits up to `timeout` (nil: for ever) for a message to begin; nil when none did, or
    /// when `wakeUp` (a descriptor) became readable first.
    func receive(timeout: Duration?, wakeUp: Int32? = nil) throws(Closed) -> (
        header: WorkerMessageHeader, body: [UInt8]
    )? {
        guard try wait(timeout, wakeUp: wakeUp) else { return nil }
        guard
            let header = try WorkerMessageHeader.read({ (buffer: inout [UInt8]) throws(Closed) in
                try read(into: &buffer)
            }),
            header.bodySize <= WorkerCodec.maximumBytes
        else { throw Closed() }
        var body = [UInt8](repeating: 0, count: header.bodySize)
        try read(into: &body)
        return (header, body)
    }

    /// True once there is something to read (or the other side has gone); false on a timeout
    /// or when `wakeUp` is readable and the channel is not.
    private func wait(_ timeout: Duration?, wakeUp: Int32?) throws(Closed) -> Bool {
        var entries = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let wakeUp { entries.append(pollfd(fd: wakeUp, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map { Int32(clamping: max(0, $0.micros / 1000)) } ?? -1
        while true {
            let ready = poll(&entries, nfds_t(entries.count), milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw Closed()
            }
            return entries[0].revents != 0
        }
    }

    private func read(into buffer: inout [UInt8]) throws(Closed) {
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled)
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { throw Closed() }
            filled += count
        }
    }
}

/// One engine worker process seen from legibled: its pid and its end of the socketpair. Ends
/// the process (SIGKILL) and reaps it when dropped.
final class WorkerProcess {
    let processID: pid_t
    let channel: WorkerChannel
    /// Where the frames this worker reads are written; nil: they go down the channel.
    let shared: SharedFrameMemory?
    /// Set once it has been reaped.
    private var ended: EngineCrash?

    /// Starts `command` with the socketpair's other end as descriptor 3 and asks it to load `key`.
    init(_ command: WorkerCommand, key: EngineKey) throws(LegibleError) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw LegibleError.system("socketpair for an engine worker")
        }
        defer { close(ends[1]) }
        do {
            shared = command.sharedMemoryBytes > 0 ? try SharedFrameMemory(capacity: command.sharedMemoryBytes) : nil
        } catch {
            close(ends[0])
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copy: only this end reaches the worker.
        posix_spawn_file_actions_adddup2(&actions, ends[1], WorkerCommand.channelDescriptor)
        if let shared {
            posix_spawn_file_actions_adddup2(&actions, shared.descriptor, WorkerCommand.sharedMemoryDescriptor)
        }
        var errorPipe: [Int32] = [-1, -1]
        if command.errorLine != nil {
            // (pipe2 is not in Swift's Glibc module; a descriptor that leaks into another
            // worker meanwhile is closed there by its closefrom.)
            guard pipe(&errorPipe) == 0 else {
                close(ends[0])
                throw LegibleError.system("pipe for an engine worker's standard error")
            }
            for end in errorPipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        }
        defer { if errorPipe[1] >= 0 { close(errorPipe[1]) } }
        let argv = command.arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, command.executable, &actions, nil, argv, environ)
        guard status == 0 else {
            close(ends[0])
            if errorPipe[0] >= 0 { close(errorPipe[0]) }
            throw LegibleError(
                .internal,
                "could not start an engine worker (\(command.executable)): "
                    + String(cString: strerror(status)))
        }
        processID = pid
        channel = WorkerChannel(descriptor: ends[0])
        if let errorLine = command.errorLine { Self.forwardLines(from: errorPipe[0], of: pid, to: errorLine) }
        do {
            try channel.send(try WorkerRequest.load(key).encoded())
        } catch {
            // It died at once; the first receive says so.
        }
    }

    /// Reads the worker's standard error line by line on a thread of its own until the worker
    /// ends (the pipe's end of file), then closes the pipe.
    private static func forwardLines(
        from descriptor: Int32, of processID: pid_t, to errorLine: @escaping @Sendable (Int32, String) -> Void
    ) {
        let thread = Thread {
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if !line.allSatisfy(\.isWhitespace) { errorLine(processID, line) }
                }
            }
            if !pending.isEmpty { errorLine(processID, String(decoding: pending, as: UTF8.self)) }
            close(descriptor)
        }
        thread.name = "worker-stderr"
        thread.start()
    }

    deinit {
        if ended == nil {
            Glibc.kill(processID, SIGKILL)
            _ = reap()
        }
    }

    /// The process's proportional set size in MB (its private memory, and its share of the
    /// library pages it maps with the other workers); nil once it has ended.
    func residentMegabytes() -> Int? {
        guard ended == nil, let text = try? String(contentsOfFile: "/proc/\(processID)/smaps_rollup", encoding: .utf8)
        else { return nil }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes / 1024
    }

    /// Ends the process now (a recognition that would not stop).
    func kill() {
        guard ended == nil else { return }
        Glibc.kill(processID, SIGKILL)
    }

    /// Waits for the process to end and says how it did (call once its channel has closed,
    /// or after `kill`).
    func reap() -> EngineCrash {
        if let ended { return ended }
        var status: Int32 = 0
        while waitpid(processID, &status, 0) < 0 && errno == EINTR {}
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS are macros.
        let signal = status & 0x7f
        let crash =
            signal != 0
            ? EngineCrash(processID: processID, signal: signal, exitStatus: nil)
            : EngineCrash(processID: processID, signal: nil, exitStatus: (status >> 8) & 0xff)
        ended = crash
        return crash
    }
}

/// Starts engine workers and keeps warm spares for the keys that should never wait for a
/// model load after a crash (the default engine's): a spare has loaded its model before it is
/// needed, only a crashed or killed worker's engine takes it, and the launcher starts the next
/// spare as soon as one is taken. Shared by every engine thread.
public final class WorkerLauncher: Sendable {
    let command: WorkerCommand
    private let spareKeys: Set<EngineKey>
    /// The idle spares, per key; each owned here until taken.
    private let spares = Locked<[EngineKey: SpareBox]>([:])
    private let stopped = Atomic<Bool>(false)
    /// MB per engine's models (`measuredMegabytes`).
    private let measured = Locked<[[String]: Int]>([:])

    /// `spareKeys`: the keys to keep one spare worker of, loaded and idle.
    public init(command: WorkerCommand, spareKeys: Set<EngineKey>) {
        self.command = command
        self.spareKeys = spareKeys
    }

    /// A new worker for an engine of `key` being loaded (the spare, if any, stays for a crash);
    /// a spare of `key` is started beside it if it should have one and has none. Its `loaded`
    /// reply is still to be read.
    func start(_ key: EngineKey) throws(LegibleError) -> WorkerProcess {
        let process = try WorkerProcess(command, key: key)
        keepSpare(of: key)
        return process
    }

    /// A worker to go on with after an engine's worker died or was killed: the warm spare when
    /// there is one (and a new spare started in its place), else a new process loading the
    /// model. Its `loaded` reply is still to be read.
    func replacement(for key: EngineKey) throws(LegibleError) -> WorkerProcess {
        let spare = spares.withLock { $0.removeValue(forKey: key) }
        keepSpare(of: key)
        if let spare { return spare.process }
        return try WorkerProcess(command, key: key)
    }

    /// Starts a spare of `key` when it is one of the spare keys and has none.
    func keepSpare(of key: EngineKey) {
        guard spareKeys.contains(key), !stopped.load(ordering: .acquiring) else { return }
        spares.withLock { spares in
            guard spares[key] == nil, let process = try? WorkerProcess(command, key: key) else { return }
            spares[key] = SpareBox(process: process)
        }
    }

    /// The memory an engine of `key`'s models was measured to take in its worker, the largest
    /// seen once loaded (`record`); nil before one has loaded. Custom words barely change it, so
    /// every custom engine of `eng` counts what the first measured. The pool bounds custom
    /// engines by it.
    public func measuredMegabytes(of key: EngineKey) -> Int? { measured.withLock { $0[key.models] } }

    /// Measures `process`, a worker of `key` that has just loaded, for `measuredMegabytes`.
    func record(_ process: WorkerProcess, key: EngineKey) {
        guard let megabytes = process.residentMegabytes() else { return }
        measured.withLock { $0[key.models] = max($0[key.models] ?? 0, megabytes) }
    }

    /// Ends the spares (at shutdown).
    public func stop() {
        stopped.store(true, ordering: .releasing)
        // Taken out under the lock, dropped outside it: each one's deinit kills and reaps its
        // process.
        let idle = spares.withLock { spares in
            defer { spares.removeAll() }
            return Array(spares.values)
        }
        withExtendedLifetime(idle) {}
    }

    /// How many spares are idle now (tests, metrics).
    public var spareCount: Int { spares.withLock { $0.count } }
}

/// A spare worker held by the launcher; used by one thread at a time (the launcher's lock,
/// then the engine thread that takes it).
private final class SpareBox: @unchecked Sendable {
    let process: WorkerProcess
    init(process: WorkerProcess) { self.process = process }
}
