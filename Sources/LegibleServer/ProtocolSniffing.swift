internal import LegibleCore
internal import LegibleHTTP2
internal import LegibleSockets

/// A connection just accepted, until its first bytes say which protocol it speaks (HTTP/2's
/// client preface, or the framed protocol's flag byte; `ProtocolSniffer`). Then the server
/// hands the socket and the bytes read so far to that protocol's transport. Held to the
/// first-message deadline like a session that never starts. On the loop thread only.
final class ProtocolSniffingHandler: EventHandler {
    let id: UInt64
    let socket: Socket
    let acceptedAt: Duration
    private unowned let server: Server
    /// What has arrived so far: at most the preface's length.
    private(set) var firstBytes: [UInt8] = []

    init(id: UInt64, socket: Socket, acceptedAt: Duration, server: Server) {
        self.id = id
        self.socket = socket
        self.acceptedAt = acceptedAt
        self.server = server
    }

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        let wanted = ProtocolSniffer.http2Preface.count - firstBytes.count
        let outcome = withUnsafeTemporaryAllocation(byteCount: wanted, alignment: 1) { buffer in
            Result { () throws(LegibleError) -> Int? in try socket.receive(into: buffer) }.map { count in
                count.map { count in
                    firstBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    return count
                }
            }
        }
        switch outcome {
        case .failure: return server.sniffed(self, as: nil, reason: "read error")
        case .success(nil): return
        case .success(0): return server.sniffed(self, as: nil, reason: "closed before speaking")
        case .success: break
        }
        switch ProtocolSniffer.verdict(firstBytes) {
        case .framed: server.sniffed(self, as: .framed, reason: "")
        case .http2: server.sniffed(self, as: .http2, reason: "")
        case .unknown: server.sniffed(self, as: nil, reason: "neither HTTP/2 nor the framed protocol")
        case .undecided: if hangup { server.sniffed(self, as: nil, reason: "hang-up") }
        }
    }
}
