// legible-load: an open-loop load test of a Legible server (see `legible-load --help`).
//
// main: flags → frames → connect → run → reports → exit code. The parts:
//   LoadSettings   the command line, checked
//   FrameSource    frames from a folder or generated (LegibleLoadCore.TestPattern + libturbojpeg)
//   LoadRunner     the schedule on one event loop; LoadSession: one non-blocking stream each
//   ServerProcess  the server's PID (SO_PEERCRED) and /proc readings
//   TextReport, HTMLReport, and JSON from LegibleLoadCore.LoadReport (LoadAnalysis builds it)
import Foundation
import Glibc
import LegibleClient
import LegibleCommandLine
import LegibleCore
import LegibleLoadCore
import LegibleSockets
import LegibleWire

ShutdownSignals.block()

let settings: LoadSettings
do {
    settings = try LoadSettings(loadCommand.parseOrExit())
} catch {
    if case .usage(let message, let path) = error {
        StandardStream.error.write(
            "Error: \(message)\n  See '\(path.joined(separator: " ")) --help' for more information.\n")
    }
    exit(ExitCode.usage.rawValue)
}

/// 1,000 sessions need more descriptors than the usual soft limit of 1,024: raise it to the
/// hard limit.
func raiseDescriptorLimit(to needed: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(needed) else { return }
    limit.rlim_cur = min(limit.rlim_max, max(rlim_t(needed), limit.rlim_cur))
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
raiseDescriptorLimit(to: settings.schedule.sessions + 64)

let frames: [LoadFrame]
do {
    if let folder = settings.framesFolder {
        frames = try FrameSource.folder(folder)
    } else {
        frames = try FrameSource.generated(
            width: settings.generateSize.width, height: settings.generateSize.height, seed: settings.seed)
    }
} catch {
    fail(error.message, code: error.code == .invalidArgument ? .usage : .failure)
}

if let folder = settings.dumpFramesFolder {
    do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for frame in frames {
            let name =
                frame.name.contains(".") ? frame.name : frame.name + (frame.image.encoding == .png ? ".png" : ".jpg")
            try Data(frame.image.data).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
        }
    } catch {
        fail("cannot write the frames to \(folder): \(error.localizedDescription)", code: .failure)
    }
    StandardStream.output.write("wrote \(frames.count) frames to \(folder)\n")
    exit(ExitCode.success.rawValue)
}

let runner: LoadRunner
let address: ServerAddress
do {
    runner = try LoadRunner(settings: settings, frames: frames)
    address = try runner.connect()
} catch {
    fail(error.message, code: error.code == .unavailable ? .unavailable : .failure)
}

/// The address as the reports give it, with the transport when it is not the framed protocol.
let serverDescription = address.description + (settings.transport == .grpc ? " (gRPC)" : "")

let outcome = runner.run()
if runner.acceptedSessions == 0 {
    let reason = outcome.ledgers.first?.error ?? "no session started"
    fail("the server at \(address) refused every session: \(reason)", code: .unavailable)
}

let report = LoadAnalysis.report(
    configuration: LoadReport.Configuration(
        sessions: settings.schedule.sessions, fps: settings.schedule.framesPerSecond,
        durationSeconds: settings.durationSeconds, rampUpSeconds: settings.rampUpSeconds,
        maxFrames: settings.schedule.maxFrames, drainTimeoutSeconds: settings.drainTimeout,
        scripts: settings.scripts.map(\.description), server: serverDescription,
        frames: settings.framesDescription(frames), options: settings.optionWords),
    schedule: outcome.schedule, ledgers: outcome.ledgers, end: outcome.end, processSamples: outcome.processSamples,
    serverPID: runner.serverPID, hitDeadline: outcome.hitDeadline, interruptedAt: outcome.interruptedAt)

let text = TextReport.render(report, serverAddress: serverDescription)
StandardStream.output.write(text)

func write(_ contents: Data, to path: String, what: String) {
    do {
        try contents.write(to: URL(fileURLWithPath: path))
    } catch {
        fail("cannot write the \(what) report to \(path): \(error.localizedDescription)", code: .failure)
    }
}
if let path = settings.jsonPath {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do {
        write(try encoder.encode(report), to: path, what: "JSON")
    } catch {
        fail("cannot encode the JSON report: \(error)", code: .failure)
    }
}
if let path = settings.htmlPath {
    write(Data(HTMLReport.render(report, serverAddress: address.description, text: text).utf8), to: path, what: "HTML")
}

let clean =
    report.counts.failed == 0 && report.counts.unanswered == 0 && report.sessionErrors == 0
    && report.protocolViolations.isEmpty && report.counts.accounted
exit(clean ? ExitCode.success.rawValue : ExitCode.failure.rawValue)
