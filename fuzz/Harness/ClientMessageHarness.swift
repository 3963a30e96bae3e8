internal import LegibleCore
internal import LegibleSessions
internal import LegibleWire
internal import LegibleWireProtobuf

/// Fuzz target (b): bytes → `ProtobufCodec.decodeClientMessage` → `SessionStateMachine`, as
/// `Connection.drainMessages` does with each message body.
///
/// The whole input is one message body. A message that decodes goes to a machine that has
/// already started (the usual case: a frame, update, ping or end mid-session) and, when it is a
/// `StartSession`, also to a fresh machine, so option validation runs both ways.
///
/// Oracles: a decode failure is INVALID_ARGUMENT; re-encoding a decoded message and decoding
/// it again is a fixed point (the bytes of the second encode equal the first); every frame the
/// machine takes gets exactly one answer and the session ends with a summary that counts it.
public enum ClientMessageHarness {
    /// Every script available with its default model, every encoding supported, no tokens:
    /// the most permissive server, so validation gets as far as it can.
    static let configuration = SessionConfiguration(
        sessionID: "fuzz", serverVersion: "fuzz",
        limits: ServerLimits(maxMessageBytes: 1 << 20, pendingFramesPerSession: 1, workers: 1, replicasPerScript: 1),
        availableScripts: Script.allCases,
        installedModels: [
            "eng", "Latin", "chi_sim", "HanS", "HanT", "hin", "Devanagari", "jpn", "Japanese", "kor", "Hangul",
        ])

    public static func run(_ data: [UInt8]) {
        let message: ClientMessage
        do throws(LegibleError) {
            message = try ProtobufCodec.decodeClientMessage(data)
        } catch {
            invariant(error.code == .invalidArgument, "decode failed with \(error.code), not INVALID_ARGUMENT")
            return
        }
        checkRoundTrip(message)

        var started = SessionStateMachine(configuration: configuration)
        let begin = started.receive(.start(StartSession()))
        invariant(begin.count == 2, "the default StartSession did not start the session: \(begin)")
        run(message, on: &started)

        if case .start = message {
            var fresh = SessionStateMachine(configuration: configuration)
            run(message, on: &fresh)
        }
    }

    /// encode(decode(encode(m))) == encode(m): nothing the decoder lets through is lost or
    /// changed by the encoder (compared as bytes, so a NaN option does not count as a change).
    static func checkRoundTrip(_ message: ClientMessage) {
        let once = ProtobufCodec.encode(message)
        let again: ClientMessage
        do throws(LegibleError) {
            again = try ProtobufCodec.decodeClientMessage(once)
        } catch {
            invariant(false, "our own encoding does not decode: \(error)")
            return
        }
        invariant(ProtobufCodec.encode(again) == once, "encode → decode → encode changed the bytes")
    }

    /// Delivers `message`, answers every frame it submits, ends the session and checks the
    /// books balance.
    static func run(_ message: ClientMessage, on machine: inout SessionStateMachine) {
        var results = 0
        var summary: SessionSummary?
        var ended = false
        var pending = machine.receive(message)
        while true {
            if pending.isEmpty {
                if machine.isClosed || ended { break }
                ended = true
                pending = machine.receive(.end)
                continue
            }
            switch pending.removeFirst() {
            case .submit(let frame, _):
                pending += machine.frameAnswered(FrameResult(frameID: frame.frameID, status: .recognized))
            case .send(.result):
                results += 1
            case .send(.summary(let sent)):
                summary = sent
            case .register, .update, .send, .close:
                break
            }
        }
        invariant(machine.isClosed, "the session did not close after EndSession")
        invariant(machine.outstandingFrames == 0, "\(machine.outstandingFrames) frames left unanswered")
        invariant(UInt64(results) == machine.summary.framesAnswered, "\(results) results for \(machine.summary)")
        if let summary { invariant(summary == machine.summary, "the summary sent is not the machine's") }
    }
}
