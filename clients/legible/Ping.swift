import Foundation
import LegibleCommandLine
import LegibleCore
import LegibleWire

/// `legible ping`: round-trip times of `Ping`/`Pong` within one session (the protocol wants a
/// `StartSession` first; a session without frames costs the server no engine).
enum PingCommand {
    static let command = Command(
        name: "ping", abstract: "Measure round trips to a Legible server.",
        discussion:
            "Starts a session, sends --count pings one after another (each awaits its pong) and prints each round trip, then the minimum, mean and maximum.",
        options: [
            serverOption, transportOption,
        ] + tlsOptions + [
            .value("count", short: "c", valueName: "n", help: "Pings to send.", default: "4"),
            .value("interval", short: "i", valueName: "seconds", help: "Wait between pings.", default: "1"),
        ],
        exitCodes: [
            ExitCodeHelp(ExitCode.success.rawValue, "Every ping was answered."),
            ExitCodeHelp(ExitCode.failure.rawValue, "The server refused the session."),
            ExitCodeHelp(ExitCode.unavailable.rawValue, "The server cannot be reached, or the connection was lost."),
            ExitCodeHelp(ExitCode.usage.rawValue, "Bad usage."),
        ])

    static func run(_ parsed: ParsedCommandLine) throws(CLIFailure) -> ExitCode {
        let count: Int
        do {
            count = try parsed.integer("count", in: 1...1_000_000) ?? 4
        } catch {
            throw error.failure
        }
        guard let interval = Double(parsed.value("interval") ?? ""), interval >= 0 else {
            throw .usage("--interval takes seconds, 0 or more, not '\(parsed.value("interval") ?? "")'")
        }
        let transport = try clientTransport(parsed)
        let session = try BlockingSession(
            addresses: try serverAddresses(parsed), transport: transport,
            tls: try clientTLS(parsed, transport: transport))
        StandardStream.output.write(
            "PING \(session.connection.address): session \(session.started.sessionID), legibled \(session.started.serverVersion)\n"
        )
        let clock = ContinuousClock()
        var times: [Double] = []
        for nonce in 1...UInt64(count) {
            if nonce > 1 && interval > 0 { Thread.sleep(forTimeInterval: interval) }
            let sent = clock.now
            try session.send(.ping(nonce: nonce))
            while true {
                if case .pong(let answered) = try session.receive(), answered == nonce { break }
            }
            let elapsed = clock.now - sent
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            times.append(ms)
            StandardStream.output.write("pong \(nonce): time=\(String(format: "%.3f", ms)) ms\n")
        }
        session.end()
        let mean = times.reduce(0, +) / Double(times.count)
        StandardStream.output.write(
            "--- \(count) pings, \(times.count) pongs; round trip min/avg/max = "
                + String(format: "%.3f/%.3f/%.3f ms\n", times.min()!, mean, times.max()!))
        return .success
    }
}
