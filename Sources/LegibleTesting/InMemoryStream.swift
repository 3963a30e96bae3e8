internal import Dispatch
internal import LegibleCore
public import LegibleServer
public import LegibleWire

/// A `SessionStream` in memory, the fake transport of the server core's tests (SwiftNIO's
/// embedded channel in spirit): what the server writes is recorded for the test to take in
/// order, and the test's messages reach the session's handler on the server's loop. No
/// socket, no bytes, no sleeps: the test waits for the next event.
///
/// ```swift
/// let stream = InMemoryStream.open(on: server)
/// stream.send([.start(options)], through: server)
/// guard case .message(.started) = stream.next() else { … }
/// ```
public final class InMemoryStream: SessionStream, @unchecked Sendable {
    public enum Event: Equatable, Sendable {
        case message(ServerMessage)
        /// The server closed the stream ("finished" after its last message, or why it aborted).
        case ended(String)
    }

    /// Set by the server when it adopts the stream; read and used on the loop thread only.
    public weak var handler: SessionHandler?
    public var queuedBytes: Int { 0 }
    private let events = Locked<(recorded: [Event], ended: Bool)>(([], false))
    private let arrived = DispatchSemaphore(value: 0)

    public init() {}

    /// A new stream, adopted by `server` on its loop.
    public static func open(on server: Server) -> InMemoryStream {
        let stream = InMemoryStream()
        server.onLoop { $0.adopt(stream) }
        return stream
    }

    // MARK: The server's side (loop thread)

    public func write(_ message: ServerMessage) { record(.message(message)) }

    public func finish() { end("finished") }

    public func discardQueuedWrites() {}

    public func abort(reason: String) { end(reason) }

    public func readArrived() {}

    public func sessionStarted() {}

    private func end(_ reason: String) {
        let first = events.withLock { state in
            if state.ended { return false }
            state.ended = true
            return true
        }
        guard first else { return }
        record(.ended(reason))
        handler?.closed(reason: reason)
    }

    private func record(_ event: Event) {
        events.withLock { $0.recorded.append(event) }
        arrived.signal()
    }

    // MARK: The test's side (any thread)

    /// Delivers `messages` to the stream's session, in order, on `server`'s loop.
    public func send(_ messages: [ClientMessage], through server: Server) {
        server.onLoop { _ in for message in messages { self.handler?.received(message) } }
    }

    /// Runs `body` with the stream's handler on `server`'s loop (to report what a real
    /// transport would: a backed-up write queue, a cut stream).
    public func onHandler(through server: Server, _ body: @escaping @Sendable (SessionHandler) -> Void) {
        server.onLoop { _ in if let handler = self.handler { body(handler) } }
    }

    /// The next thing the server did with the stream, in order; nil when nothing came within
    /// `timeout` seconds.
    public func next(timeout seconds: Double = 30) -> Event? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return events.withLock { $0.recorded.removeFirst() }
    }
}
