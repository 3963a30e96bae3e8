public import LegibleCore
internal import LegibleHTTP2
public import LegibleSockets
public import LegibleTLS
public import LegibleWire

/// How a client speaks to the server; every listener serves both (its first bytes tell them
/// apart), so this is the client's choice, not the address's.
public enum ClientTransport: String, Sendable, CaseIterable {
    /// Legible's framed protocol: length-prefixed messages straight on the socket.
    case framed
    /// The same session as one gRPC `Recognizer/Stream` call over HTTP/2 (cleartext with prior
    /// knowledge), as a stock gRPC client runs it.
    case grpc

    /// A message stream of this transport on `socket`, connected to `address`; with `tls`, after
    /// a TLS handshake (the server's certificate checked against the address's host).
    public func stream(
        on socket: Socket, address: ServerAddress, maxMessageBytes: Int, tls: TLSClientContext? = nil
    ) throws(LegibleError) -> any MessageStream {
        if let tls {
            guard case .tcp(let host, _) = address else {
                throw LegibleError(.invalidArgument, "TLS is for tcp: addresses; a unix socket is served in cleartext")
            }
            socket.filter = try tls.clientSession(on: socket, serverName: host)
        }
        switch self {
        case .framed:
            return FramedStream(socket: socket, maxMessageBytes: maxMessageBytes)
        case .grpc:
            var authority = "localhost"
            if case .tcp(let host, let port) = address { authority = "\(host):\(port)" }
            return try GRPCClientStream(socket: socket, authority: authority, maxMessageBytes: maxMessageBytes)
        }
    }
}
