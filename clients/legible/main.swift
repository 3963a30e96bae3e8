import Foundation
import LegibleCommandLine

/// `legible`: the command-line client of the Legible server. Each subcommand lives in its own
/// file (Recognize.swift, Stream.swift, Ping.swift, Version.swift) with its declaration, from
/// which both parsing and `--help` come.
let root = Command(
    name: "legible", abstract: "The command-line client of the Legible text-recognition server.",
    discussion: "The server address defaults to unix:legible.sock, then tcp:127.0.0.1:7480; --server picks one.",
    subcommands: [RecognizeCommand.command, StreamCommand.command, PingCommand.command, VersionCommand.command],
    exitCodes: standardExitCodes)

let parsed = root.parseOrExit()
let status: ExitCode
do {
    switch parsed.commandPath.last {
    case "recognize": status = try RecognizeCommand.run(parsed)
    case "stream": status = try StreamCommand.run(parsed)
    case "ping": status = try PingCommand.run(parsed)
    case "version": status = try VersionCommand.run(parsed)
    default: fail("unknown subcommand", code: .usage)
    }
} catch {
    if error.code == .usage {
        let path = parsed.commandPath.joined(separator: " ")
        let hint = error.pointsToHelp ? "  See '\(path) --help' for more information.\n" : ""
        StandardStream.error.write("Error: \(error.message)\n" + hint)
        exit(error.code.rawValue)
    }
    fail(error.message, code: error.code)
}
exit(status.rawValue)
