internal import CLinux
internal import Glibc
internal import LegibleCore
internal import LegibleSockets

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
