import LegibleClient
import LegibleCore
import LegibleTLS
import LegibleWire

/// A blocking session with the server, for the commands that await each answer
/// (`recognize`, `ping`, `version`).
struct BlockingSession {
    let connection: ClientConnection
    let started: SessionStarted

    /// Connects to the first address that answers and starts a session.
    ///
    /// - Throws: exit 2 when no server answers or it refuses for want of capacity
    ///   (UNAVAILABLE); exit 1 when it refuses the session for another reason.
    init(
        addresses: [ServerAddress], transport: ClientTransport = .framed, tls: TLSClientContext? = nil,
        options: RecognitionOptions = RecognitionOptions()
    ) throws(CLIFailure) {
        do {
            connection = try ClientConnection(addresses: addresses, transport: transport, tls: tls)
        } catch {
            throw CLIFailure(.unavailable, error.message)
        }
        do {
            started = try connection.startSession(StartSession(clientName: clientName, options: options))
        } catch {
            throw CLIFailure(
                error.code == .unavailable ? .unavailable : .failure,
                "the server refused the session: \(error.code.name): \(error.message)")
        }
    }

    /// The next message; the stream ending or breaking is exit 2.
    func receive() throws(CLIFailure) -> ServerMessage {
        let message: ServerMessage?
        do {
            message = try connection.receive()
        } catch {
            throw CLIFailure(.unavailable, error.message)
        }
        guard let message else { throw CLIFailure(.unavailable, "the server closed the stream") }
        if case .error(let error) = message, error.fatal {
            throw CLIFailure(.failure, "the server ended the session: \(error)")
        }
        return message
    }

    func send(_ message: ClientMessage) throws(CLIFailure) {
        do {
            try connection.send(message)
        } catch {
            throw CLIFailure(.unavailable, "cannot send to the server: \(error.message)")
        }
    }

    /// Sends `EndSession` and waits for the summary (nil when the stream ends first).
    @discardableResult
    func end() -> SessionSummary? {
        guard (try? connection.send(.end)) != nil else { return nil }
        while let message = try? connection.receive() {
            if case .summary(let summary) = message { return summary }
        }
        return nil
    }
}
