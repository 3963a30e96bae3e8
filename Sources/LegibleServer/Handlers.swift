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
