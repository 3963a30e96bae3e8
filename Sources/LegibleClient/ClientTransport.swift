public import LegibleCore
internal import LegibleHTTP2
public import LegibleSockets
public import LegibleWire

/// How a client speaks to the server; every listener serves both (its first bytes tell them
/// apart), so this is the client's choice, not the address's.
public enum ClientTransport: String, Sendable, CaseIterable {
    /// Legible's framed protocol: length-prefixed messages straight on the socket.
    case framed
    /// The same session as one gRPC `Recognizer/Stream` call over HTTP/2 (cleartext with prior
    /// knowledge), as a stock gRPC client runs it.
    case grpc

    /// A message stream of this transport on `socket`, connected to `address`.
    public func stream(on socket: Socket, address: ServerAddress, maxMessageBytes: Int) throws(LegibleError)
        -> any MessageStream
    {
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
