public import LegibleWire

/// The transport seam: one session's stream of messages, as the server core sees it — whether
/// the bytes arrive as the framed protocol over a socket (`FramedTransport`), an HTTP/2
/// stream, or a test's memory (grpc-swift 2's `RPCStream` in spirit). Lives on the event
/// loop's thread.
///
/// The stream decodes what arrives and reports it to its `SessionHandler` (`received`,
/// `failed`, `bytesArrived`, `inputEnded`, `writeQueue(backedUp:)`, `closed`); the handler
/// writes through it. The stream owns its write queue and its bounds.
public protocol SessionStream: AnyObject {
    /// Where the stream reports what arrives; set once, by the server, before the first event.
    var handler: SessionHandler? { get set }
    /// Queues `message` and sends what the peer takes now.
    func write(_ message: ServerMessage)
    /// Closes once everything queued is sent (the peer reads the end of the stream).
    func finish()
    /// Forgets what is queued: the peer will not read it.
    func discardQueuedWrites()
    /// Closes now, whatever is left unwritten; the handler hears `closed`.
    func abort(reason: String)
    /// Reads what has already arrived, before the server drains (frames sent before the
    /// drain are answered, not lost with the stream).
    func readArrived()
    /// The session started (StartSession accepted: authenticated and admitted): from now on
    /// the stream takes messages up to the server's `--max-message-bytes`; before, only up to
    /// `SessionStateMachine.maxStartSessionBytes`.
    func sessionStarted()
    /// Bytes queued and not yet sent (for logs).
    var queuedBytes: Int { get }
}
