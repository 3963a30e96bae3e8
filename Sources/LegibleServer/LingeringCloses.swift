internal import LegibleCore
internal import LegibleSockets

/// Sockets the server has finished with, closed only once their client stops sending.
///
/// (HTTP/2 connections the server drained linger the same way, with their write side open:
/// `HTTP2Transport.close(reason:lingering:)` says why.)
///
/// When the server ends a session itself (its summary after a drain or a session's last
/// capture, a fatal error saying why), the client may still be sending: a camera's next frame
/// is on its way before it has read the end. Closing a socket with unread bytes makes the
/// kernel answer RST, and a client that had not yet read the server's last messages loses
/// them to the reset. So after the server's last bytes and its half-close, what still arrives
/// is read and dropped until the client closes (or breaks the connection), or `seconds` pass.
/// At most `maxSockets` linger at once; past that one is closed at once, as before. A draining
/// server waits for them before it exits (exiting closes them too). Their time is the real
/// clock's, also under a test's manual clock: it is the network's time they wait for. On the
/// loop thread only.
final class LingeringCloses {
    static let seconds = 2
    static let maxSockets = 256

    private final class Lingering: EventHandler {
        let socket: Socket
        let until: ContinuousClock.Instant
        unowned let owner: LingeringCloses

        init(socket: Socket, until: ContinuousClock.Instant, owner: LingeringCloses) {
            self.socket = socket
            self.until = until
            self.owner = owner
        }

        func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
            // TLS may hold decrypted bytes epoll does not see: read while it does.
            repeat {
                let outcome = withUnsafeTemporaryAllocation(byteCount: 16 << 10, alignment: 1) { buffer in
                    Result { () throws(LegibleError) -> Int? in try socket.receive(into: buffer) }
                }
                switch outcome {
                case .failure, .success(0): return owner.release(socket.descriptor)
                case .success(nil): if hangup { return owner.release(socket.descriptor) } else { return }
                case .success: continue
                }
            } while true
        }
    }

    private let loop: EventLoop
    private var lingering: [Int32: Lingering] = [:]

    init(loop: EventLoop) { self.loop = loop }

    var count: Int { lingering.count }

    /// Called when the last lingering socket has been closed (a draining server stops then).
    var onEmpty: (() -> Void)?

    /// Takes `socket` (its last bytes written; a framed session's write side shut down, so that
    /// its client reads the end; an HTTP/2 connection's left open, its client told by GOAWAY)
    /// and closes it once the client has closed its side, or `seconds` from now.
    func close(_ socket: Socket) {
        guard lingering.count < Self.maxSockets else { return socket.close() }
        let entry = Lingering(socket: socket, until: .now + .seconds(Self.seconds), owner: self)
        do throws(LegibleError) {
            try loop.register(socket.descriptor, handler: entry)
        } catch {
            return socket.close()
        }
        lingering[socket.descriptor] = entry
        // What arrived before the registration is read now (epoll reports only new input
        // for an edge, and TLS may hold some).
        entry.handleEvents(readable: true, writable: false, hangup: false)
    }

    /// Closes the sockets whose time is up (the server's tick); returns how many.
    func tick() -> Int {
        let now = ContinuousClock.now
        let due = lingering.filter { now >= $0.value.until }.keys
        for descriptor in due { release(descriptor) }
        return due.count
    }

    /// Stops watching `descriptor` and closes its socket.
    private func release(_ descriptor: Int32) {
        guard let entry = lingering.removeValue(forKey: descriptor) else { return }
        loop.unregister(descriptor)
        entry.socket.close()
        if lingering.isEmpty { onEmpty?() }
    }
}
