import LegibleCommandLine
import LegibleCore
import LegibleWire

/// `legible version`: this client's version and, when a server answers, what its
/// `SessionStarted` says: version, protocol, scripts and engine pool, limits.
enum VersionCommand {
    static let command = Command(
        name: "version", abstract: "Print the client's version and the server's.",
        options: [
            serverOption, transportOption,
        ] + tlsOptions + [
            .flag("client", help: "Print the client's version only, without contacting a server.")
        ],
        exitCodes: [
            ExitCodeHelp(ExitCode.success.rawValue, "Printed."),
            ExitCodeHelp(ExitCode.failure.rawValue, "The server refused the session."),
            ExitCodeHelp(
                ExitCode.unavailable.rawValue, "The server cannot be reached (the client's version is printed anyway)."),
            ExitCodeHelp(ExitCode.usage.rawValue, "Bad usage."),
        ])

    static func run(_ parsed: ParsedCommandLine) throws(CLIFailure) -> ExitCode {
        let addresses = try serverAddresses(parsed)
        StandardStream.output.write("legible \(clientVersion) (protocol \(legibleProtocolVersion))\n")
        if parsed.flag("client") { return .success }
        let transport = try clientTransport(parsed)
        let session = try BlockingSession(
            addresses: addresses, transport: transport, tls: try clientTLS(parsed, transport: transport))
        let started = session.started
        session.end()
        var out =
            "server: legibled \(started.serverVersion) (protocol \(started.protocolVersion)) at \(session.connection.address)\n"
        out += "scripts: \(started.availableScripts.map(\.description).joined(separator: ", "))\n"
        for engine in started.engines {
            out +=
                "engine: \(engine.script) model \(engine.model), replicas \(engine.replicas), loaded \(engine.loaded)\n"
        }
        let limits = started.limits
        out += "limits: workers \(limits.workers), replicas per script \(limits.replicasPerScript), "
        out += "max sessions \(limits.maxSessions), max message \(limits.maxMessageBytes) bytes, "
        out +=
            "frame deadline " + (limits.frameDeadlineMillis == 0 ? "none" : "\(limits.frameDeadlineMillis) ms") + "\n"
        StandardStream.output.write(out)
        return .success
    }
}
