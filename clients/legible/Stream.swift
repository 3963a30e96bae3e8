internal import CLinux
import Foundation
import LegibleClient
import LegibleCommandLine
import LegibleCore
import LegibleSockets
import LegibleTLS
import LegibleWire

/// `legible stream DIR|GLOB --fps N`: sends a sequence of images as a live camera does and
/// prints what changes in the text.
///
/// Open loop: frame k is due at start + k/fps whatever the server does. A frame the socket
/// cannot take whole (the previous one is still going out) or that falls due while there is
/// no connection is not sent ("unsent"): nothing queues on the client, as on a camera. One
/// thread polls the socket, a signalfd for Ctrl-C, and the clock.
enum StreamCommand {
    static let command = Command(
        name: "stream", abstract: "Send a sequence of images as a live camera would and print what changes.",
        discussion: """
            Sends the images at --fps frames a second, never queueing: a frame that would have to wait \
            for the previous one to leave the socket is not sent. Prints each change to the text as it \
            arrives, '+ [TRACK] TEXT' for a line added, '~ [TRACK] TEXT' changed, '- [TRACK]' removed, and \
            '= stable' when every line has held its text for --stable-after results; at the end a summary: \
            sent = recognized + dropped + skipped + failed + lost (not read because the connection broke or the server ended the session), then \
            unsent, and the latency of recognized frames. When the connection drops it reconnects with \
            backoff (100 ms doubling to 5 s, jittered) and goes on in a new session. Ctrl-C ends the \
            session, waits for its summary and exits as if the stream had run out. With --capture the \
            server confirms values across results: each is printed as 'captured GOAL: VALUE' (with \
            --quiet too) and the session ends once every goal is captured.
            """,
        options: [
            serverOption, transportOption,
        ] + tlsOptions + [
            .value("fps", valueName: "n", help: "Frames per second (may be fractional).", default: "10"),
            .flag("loop", help: "Start over after the last image (until --duration or Ctrl-C)."),
            .value("duration", valueName: "seconds", help: "Stop after this long."),
            .flag("quiet", short: "q", help: "Print the summary only."),
        ] + recognitionOptions,
        arguments: [
            Argument(
                "source",
                help: "A folder (its .jpg, .jpeg and .png files by name), a quoted glob pattern, or image files.",
                variadic: true)
        ],
        exitCodes: [
            ExitCodeHelp(
                ExitCode.success.rawValue,
                "The stream ran (or Ctrl-C ended it) and no frame failed; with --capture, every goal was captured."),
            ExitCodeHelp(
                ExitCode.failure.rawValue,
                "Some frame failed (the reason is on standard error), or a --capture goal was not captured."),
            ExitCodeHelp(
                ExitCode.unavailable.rawValue,
                "The server cannot be reached at the start, or was still gone at the end."),
            ExitCodeHelp(
                ExitCode.usage.rawValue, "Bad usage: an unknown flag, a bad value, no images, an unknown image file."),
        ])

    static func run(_ parsed: ParsedCommandLine) throws(CLIFailure) -> ExitCode {
        var options = try parseRecognitionOptions(parsed)
        options.captureGoals = try parseCaptureGoals(parsed, confirmations: 3, endWhenCaptured: true)
        let orientation = try parseOrientation(parsed)
        let addresses = try serverAddresses(parsed)
        let transport = try clientTransport(parsed)
        let tls = try clientTLS(parsed, transport: transport)
        guard let fps = Double(parsed.value("fps") ?? ""), fps > 0, fps <= 1000 else {
            throw .usage(
                "--fps takes a number of frames a second above 0 (up to 1000), not '\(parsed.value("fps") ?? "")'")
        }
        var duration: Duration?
        if let text = parsed.value("duration") {
            guard let seconds = Double(text), seconds > 0 else {
                throw .usage("--duration takes seconds above 0, not '\(text)'")
            }
            duration = .milliseconds(Int64(seconds * 1000))
        }
        var files: [String] = []
        for source in parsed.positionals { files += try expandSource(source) }
        guard !files.isEmpty else {
            throw .usage("no JPEG or PNG images in \(parsed.positionals.joined(separator: " "))")
        }
        var frames: [InputImage] = []
        for file in files {
            let input = try InputImage(file)
            // A camera sends what it captured as it is: decoding a TIFF or a GIF at --fps would
            // time the client, not the server.
            guard input.format.wireEncoding != nil else {
                throw .input(
                    "\(file): a \(input.format) image; stream sends JPEG and PNG files as they are "
                        + "(legible recognize reads \(input.format) too)")
            }
            frames.append(input)
        }

        let start = StartSession(clientName: clientName, options: options)
        let connection: LiveConnection
        do {
            connection = try LiveConnection(addresses: addresses, start: start, transport: transport, tls: tls)
        } catch {
            throw CLIFailure(error.code == .unavailable ? .unavailable : .failure, error.message)
        }
        // Ctrl-C and SIGTERM arrive as poll events (the stream ends with its summary).
        ShutdownSignals.block()
        let signals: ShutdownSignals
        do {
            signals = try ShutdownSignals()
        } catch {
            throw CLIFailure(.failure, error.message)
        }
        let streamer = Streamer(
            frames: frames, orientation: orientation, fps: fps, loop: parsed.flag("loop"), duration: duration,
            addresses: addresses, transport: transport, tls: tls, start: start, quiet: parsed.flag("quiet"),
            connection: connection, signals: signals)
        return streamer.run()
    }
}

/// The counts a stream reports at its end.
struct StreamCounts {
    var sent = 0
    var recognized = 0
    var dropped = 0
    var skipped = 0
    var failed = 0
    /// Sent but not read: the connection broke first, or the server ended the session (it was
    /// shutting down).
    var lost = 0
    /// Fell due but not sent: the socket was still busy with the previous frame, there was no
    /// connection, or the loop was late.
    var unsent = 0
    /// Of recognized frames: from the send to the result.
    var latencies: [Duration] = []

    var summaryLine: String {
        var line =
            "summary: sent \(sent), recognized \(recognized), dropped \(dropped), skipped \(skipped), failed \(failed), "
            + "lost \(lost), unsent \(unsent); latency "
        if latencies.isEmpty {
            line += "-"
        } else {
            let sorted = latencies.sorted()
            func percentile(_ p: Double) -> String {
                let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
                let ms =
                    Double(sorted[index].components.attoseconds) / 1e15 + Double(sorted[index].components.seconds)
                    * 1000
                return String(format: "%.0f ms", ms)
            }
            line += "p50 \(percentile(0.5)), p99 \(percentile(0.99))"
        }
        return line + "\n"
    }
}

/// Exponential backoff with jitter: 100 ms doubling to 5 s; each wait is drawn from the upper
/// half of the current step, so many clients cut off together do not return together.
struct Backoff {
    static let first: Duration = .milliseconds(100)
    static let limit: Duration = .seconds(5)
    private var step = Backoff.first

    mutating func next() -> Duration {
        let wait = step / 2 + step / 2 * Double.random(in: 0...1)
        step = min(step * 2, Backoff.limit)
        return wait
    }

    mutating func reset() { step = Backoff.first }
}

/// The stream's single-threaded loop and its state.
final class Streamer {
    private let frames: [InputImage]
    private let orientation: Orientation?
    private let interval: Duration
    private let loop: Bool
    private let duration: Duration?
    private let addresses: [ServerAddress]
    private let transport: ClientTransport
    private let tls: TLSClientContext?
    private let start: StartSession
    private let quiet: Bool
    private let clock = ContinuousClock()
    private let signals: ShutdownSignals

    private var connection: LiveConnection?
    private var backoff = Backoff()
    private var reconnectAt: ContinuousClock.Instant?
    /// Ticks so far (frame k of the sequence is tick k modulo its length).
    private var tick = 0
    private var nextFrameID: UInt64 = 1
    /// Sent frames awaiting their result: when sent, and which image.
    private var inFlight: [UInt64: (sentAt: ContinuousClock.Instant, image: Int)] = [:]
    private var counts = StreamCounts()
    private var stable = false
    /// No more frames: EndSession is sent (or there is no connection to send it on).
    private var ending = false
    private var interrupted = false
    private var finished = false
    /// Goals of `start`'s options captured so far.
    private var captured: Set<String> = []
    private var goals: [String] { start.options.captureGoals.map(\.name) }
    private var allCaptured: Bool { !goals.isEmpty && goals.allSatisfy(captured.contains) }

    init(
        frames: [InputImage], orientation: Orientation?, fps: Double, loop: Bool, duration: Duration?,
        addresses: [ServerAddress], transport: ClientTransport, tls: TLSClientContext?, start: StartSession,
        quiet: Bool,
        connection: LiveConnection,
        signals: ShutdownSignals
    ) {
        self.signals = signals
        self.frames = frames
        self.orientation = orientation
        interval = .nanoseconds(Int64(1e9 / fps))
        self.loop = loop
        self.duration = duration
        self.addresses = addresses
        self.transport = transport
        self.tls = tls
        self.start = start
        self.quiet = quiet
        self.connection = connection
    }

    func run() -> ExitCode {
        let began = clock.now
        while !finished {
            let now = clock.now
            if !ending {
                if (!loop && tick >= frames.count) || duration.map({ now - began >= $0 }) == true {
                    beginEnding()
                } else {
                    sendDueFrames(now: now, began: began)
                }
            }
            if connection == nil {
                if ending { break }
                if let reconnectAt, now >= reconnectAt { reconnect() }
            }
            if finished { break }
            waitForEvents(until: nextWake(began: began))
        }
        StandardStream.output.write(counts.summaryLine)
        if counts.failed > 0 { return .failure }
        if !goals.isEmpty && !allCaptured {
            let missed = goals.filter { !captured.contains($0) }
            say("legible: not captured: \(missed.joined(separator: ", "))\n", error: true)
            return .failure
        }
        // The stream ran out with the server gone: it was unreachable when it mattered.
        if connection == nil && !interrupted { return .unavailable }
        return .success
    }

    // MARK: Sending

    /// Sends the frame due now; frames whose time passed while the loop was busy are unsent.
    private func sendDueFrames(now: ContinuousClock.Instant, began: ContinuousClock.Instant) {
        while (loop || tick < frames.count) && now >= began + interval * tick {
            let late = now >= began + interval * (tick + 1) && (loop || tick + 1 < frames.count)
            if late {
                counts.unsent += 1
            } else {
                offer(image: tick % frames.count)
            }
            tick += 1
        }
    }

    private func offer(image index: Int) {
        guard let connection else {
            counts.unsent += 1
            return
        }
        let data: [UInt8]
        do {
            data = try frames[index].read()
        } catch {
            counts.unsent += 1
            say("legible: \(error.message)\n", error: true)
            return
        }
        // `run` let JPEG and PNG files through only.
        let frame = Frame(
            frameID: nextFrameID, image: EncodedImage(encoding: frames[index].format.wireEncoding ?? .jpeg, data: data),
            orientation: orientation)
        do {
            guard try connection.offerFrame(frame) else {
                counts.unsent += 1
                return
            }
        } catch {
            connectionLost(error.message)
            counts.unsent += 1
            return
        }
        inFlight[nextFrameID] = (clock.now, index)
        nextFrameID += 1
        counts.sent += 1
    }

    private func beginEnding() {
        ending = true
        guard let connection else {
            finished = true
            return
        }
        do {
            try connection.enqueue(.end)
        } catch {
            connectionLost(error.message)
        }
    }

    // MARK: Waiting

    /// When the loop must next act without an event: the next frame, the end, a reconnect.
    private func nextWake(began: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var wake: ContinuousClock.Instant?
        func consider(_ instant: ContinuousClock.Instant?) {
            guard let instant else { return }
            wake = wake.map { min($0, instant) } ?? instant
        }
        if !ending {
            consider(began + interval * tick)
            consider(duration.map { began + $0 })
        }
        if connection == nil { consider(reconnectAt) }
        return wake
    }

    /// Polls the socket and the signals until `deadline` (nil: until an event).
    private func waitForEvents(until deadline: ContinuousClock.Instant?) {
        var timeout: Int32 = -1
        if let deadline {
            let left = clock.now.duration(to: deadline)
            let ms = Double(left.components.seconds) * 1000 + Double(left.components.attoseconds) / 1e15
            timeout = Int32(max(0, min(60_000, ms.rounded(.up))))
        }
        var fds = [pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0)]
        if let connection {
            fds.append(
                pollfd(
                    fd: connection.descriptor, events: Int16(POLLIN) | (connection.hasUnsentBytes ? Int16(POLLOUT) : 0),
                    revents: 0))
        }
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        guard ready > 0 else { return }
        if fds[0].revents != 0 { interrupt() }
        if fds.count > 1, fds[1].revents != 0 { serviceConnection(writable: fds[1].revents & Int16(POLLOUT) != 0) }
    }

    /// Ctrl-C (or SIGTERM): end the session and wait for its summary; a second one quits now.
    private func interrupt() {
        guard !signals.take().isEmpty else { return }
        if interrupted {
            StandardStream.output.write(counts.summaryLine)
            exit(130)
        }
        interrupted = true
        if !ending { beginEnding() }
    }

    // MARK: Receiving

    private func serviceConnection(writable: Bool) {
        guard let connection else { return }
        do {
            if writable { try connection.flush() }
            guard let messages = try connection.receive() else {
                connectionLost("the server closed the stream")
                return
            }
            for message in messages { handle(message) }
        } catch {
            connectionLost(error.message)
        }
    }

    private func handle(_ message: ServerMessage) {
        switch message {
        case .result(let result): handle(result)
        case .summary:
            if ending || allCaptured {
                // Every frame of the session is answered (the server ends a session whose
                // goals are all captured, as EndSession would).
                // Every frame of the session is answered.
                lose()
                finished = true
            } else {
                connectionLost("the server ended the session")
            }
        case .error(let error):
            say("legible: server: \(error)\n", error: true)
        case .started, .pong:
            break
        }
    }

    private func handle(_ result: FrameResult) {
        guard let sent = inFlight.removeValue(forKey: result.frameID) else { return }
        switch result.status {
        case .recognized:
            counts.recognized += 1
            counts.latencies.append(clock.now - sent.sentAt)
        case .skipped: counts.skipped += 1
        case .dropped: counts.dropped += 1
        case .failed where allCaptured && result.error?.code == LegibleError.Code.failedPrecondition.rawValue:
            // Sent after the server ended the session on its last capture: not read, not failed.
            counts.lost += 1
        case .failed where result.error?.code == LegibleError.Code.unavailable.rawValue:
            // The server is shutting down and takes no more frames: not the frame's fault. It
            // is lost, and so is the rest of this session; behind a load balancer another
            // instance can take the stream now rather than after this one's drain.
            counts.lost += 1
            if !ending {
                connectionLost("the server is shutting down")
                reconnectAt = clock.now
                return
            }
        case .failed:
            counts.failed += 1
            say(
                "legible: frame \(result.frameID) (\(frames[sent.image].name)): \(result.error?.description ?? "failed")\n",
                error: true)
        }
        captured.formUnion(result.captures.filter(\.captured).map(\.goal))
        StandardStream.output.write(capturedLines(result))
        // The server ends the session now: send no more frames, and no EndSession either (it
        // would reach a closed socket and reset the summary away).
        if allCaptured { ending = true }
        guard result.status == .recognized || result.status == .skipped else { return }
        // The server's tracker says what changed; track ids name the lines.
        var texts: [UInt64: String] = [:]
        for line in result.text?.lines ?? [] { texts[line.trackID] = line.text }
        say(Self.changeLines(result.changes ?? Changes(), texts: texts))
        if result.stable && !stable { say("= stable\n") }
        stable = result.stable
    }

    /// `+ [id] text`, `~ [id] text`, `- [id]` for `changes`.
    static func changeLines(_ changes: Changes, texts: [UInt64: String]) -> String {
        var out = ""
        for id in changes.added { out += "+ [\(id)] \(texts[id] ?? "")\n" }
        for id in changes.changed { out += "~ [\(id)] \(texts[id] ?? "")\n" }
        for id in changes.removed { out += "- [\(id)]\n" }
        return out
    }

    // MARK: Connection

    /// Counts the frames still awaited as lost.
    private func lose() {
        counts.lost += inFlight.count
        inFlight.removeAll()
    }

    private func connectionLost(_ reason: String) {
        guard let lost = connection else { return }
        // Closed now: the first connection is also held by `run`'s caller, and the server
        // (draining for a restart, say) waits for the client's end before it exits.
        lost.close()
        connection = nil
        lose()
        stable = false
        if ending {
            finished = true
            say("legible: connection lost before the summary: \(reason)\n", error: true)
            return
        }
        let wait = backoff.next()
        reconnectAt = clock.now + wait
        say("legible: connection lost: \(reason); reconnecting\n", error: true)
    }

    private func reconnect() {
        do {
            let fresh = try LiveConnection(addresses: addresses, start: start, transport: transport, tls: tls)
            connection = fresh
            reconnectAt = nil
            backoff.reset()
            say("legible: reconnected to \(fresh.address), session \(fresh.started.sessionID)\n", error: true)
        } catch {
            reconnectAt = clock.now + backoff.next()
        }
    }

    private func say(_ text: String, error: Bool = false) {
        guard !text.isEmpty else { return }
        if error {
            StandardStream.error.write(text)
        } else if !quiet {
            StandardStream.output.write(text)
        }
    }
}
