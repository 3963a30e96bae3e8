internal import CLinux
internal import Glibc
internal import LegibleCore
internal import LegibleSockets

/// Accepts connections on one listening socket.
final class ListenerHandler: EventHandler {
    let socket: Socket
    /// Its connections speak TLS (`--tls-cert`, TCP listeners).
    let tls: Bool
    weak var server: Server?
    init(socket: Socket, tls: Bool) {
        self.socket = socket
        self.tls = tls
    }
    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        server?.accept(from: socket, tls: tls)
    }
}
