internal import LegibleCore
internal import LegibleHTTP2
internal import LegibleSockets

/// A connection just accepted, until its first bytes say which protocol it speaks (HTTP/2's
/// client preface, or the framed protocol's flag byte; `ProtocolSniffer`). Then the server
/// hands the socket and the bytes read so far to that protocol's transport. Held to the
/// first-message deadline like a session that never starts. A connection refused at a
/// connection limit is sniffed too (for `Server.refusalSeconds`), so that it hears why in
/// the protocol it speaks. On the loop thread only.
final class ProtocolSniffingHandler: EventHandler {
    let id: UInt64
    let socket: Socket
    let acceptedAt: Duration
    /// Why the connection is refused, when it is: it is told so, not served.
    let refusal: String?
    private unowned let server: Server
    /// What has arrived so far: at most the preface's length.
    private(set) var firstBytes: [UInt8] = []

    init(id: UInt64, socket: Socket, acceptedAt: Duration, refusal: String? = nil, server: Server) {
        self.id = id
        self.socket = socket
        self.acceptedAt = acceptedAt
        self.refusal = refusal
        self.server = server
    }

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        // Under TLS the first read also runs the handshake; decrypted bytes may wait inside
        // TLS where the loop does not see them: read on while they do.
        repeat {
            guard readOnce(hangup: hangup) else { return }
        } while socket.hasBufferedInput
    }

    /// One read and what it tells; false once the connection is handed over or closed.
    private func readOnce(hangup: Bool) -> Bool {
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
        case .failure(let error):
            server.sniffed(self, as: nil, reason: "read error: \(error.message)")
            return false
        case .success(nil): return hangup ? handOver(nil, "hang-up") : true
        case .success(0): return handOver(nil, "closed before speaking")
        case .success: break
        }
        switch ProtocolSniffer.verdict(firstBytes) {
        case .framed: return handOver(.framed, "")
        case .http2: return handOver(.http2, "")
        case .unknown: return handOver(nil, "neither HTTP/2 nor the framed protocol")
        case .undecided: return hangup ? handOver(nil, "hang-up") : true
        }
    }

    private func handOver(_ spoken: Server.WireProtocol?, _ reason: String) -> Bool {
        server.sniffed(self, as: spoken, reason: reason)
        return false
    }
}
