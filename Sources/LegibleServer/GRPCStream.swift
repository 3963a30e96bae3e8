internal import LegibleCore
internal import LegibleHTTP2
internal import LegibleSessions
internal import LegibleSockets
internal import LegibleWire
internal import LegibleWireProtobuf

/// One gRPC call on an HTTP/2 connection as a `SessionStream`: the call's request messages
/// (gRPC length-prefixed, in DATA frames) are decoded for the session's handler, and what the
/// session writes goes out as the call's response. Lives on the event loop's thread, owned
/// by its `HTTP2Transport`.
///
/// - `Recognizer/Stream` carries the framed protocol's session message for message; a client
///   that half-closes without EndSession ends its session as EndSession would (the natural
///   end of a gRPC client stream). The call's status is the session's fatal error, if it had
///   one, else OK.
/// - `Recognizer/Recognize` is a session of one frame: its RecognizeRequest is played to the
///   session as StartSession, the Frame and EndSession; of the answers only the FrameResult
///   is sent, and an error (a refused session, a frame that failed) becomes the call's status.
///
/// `authorization: Bearer TOKEN` stands in for `StartSession.auth_token` when that is empty.
final class GRPCStream: SessionStream {
    weak var handler: SessionHandler?
    let id: Int32
    /// Legible's two methods: a session of many frames, or of one.
    enum Method { case stream, recognize }
    let method: Method
    private unowned let transport: HTTP2Transport
    private var deframer: MessageDeframer
    private let maxMessageBytes: Int
    private let bearerToken: String?
    /// When the call's `grpc-timeout` runs out, on the server's clock.
    let deadline: Duration?
    /// The status the call ends with: the first fatal error the session sent (Stream), or any
    /// error (Recognize).
    private var status: (code: LegibleError.Code, message: String)?
    private var sentResult = false
    private var requestTaken = false
    /// The client sent EndSession (Stream): its half-close needs no EndSession of ours.
    private var clientEnded = false
    private var inputClosed = false
    private var ended = false
    private(set) var backedUp = false

    init(
        id: Int32, method: Method, bearerToken: String?, deadline: Duration?, maxMessageBytes: Int,
        transport: HTTP2Transport
    ) {
        self.id = id
        self.method = method
        self.bearerToken = bearerToken
        self.deadline = deadline
        self.maxMessageBytes = maxMessageBytes
        self.transport = transport
        // A Recognize request is the session's start and its frame in one message.
        deframer = MessageDeframer(
            maxMessageBytes: method == .recognize
                ? maxMessageBytes : min(SessionStateMachine.maxStartSessionBytes, maxMessageBytes))
    }

    // MARK: What the connection delivers

    /// Request bytes of this call (a DATA frame's payload).
    func received(_ bytes: [UInt8]) {
        guard !ended, let handler else { return }
        deframer.append(bytes)
        while !ended {
            let payload: [UInt8]
            do throws(LegibleError) {
                guard let next = try deframer.next() else { break }
                payload = next
            } catch {
                handler.failed(error)
                return
            }
            deliver(payload, to: handler)
        }
        if !ended { handler.bytesArrived(inMessage: !deframer.isAtMessageBoundary) }
    }

    private func deliver(_ payload: [UInt8], to handler: SessionHandler) {
        switch method {
        case .stream:
            do throws(LegibleError) {
                var message = try ProtobufCodec.decodeClientMessage(payload)
                if case .start(var start) = message, start.authToken.isEmpty, let bearerToken {
                    start.authToken = bearerToken
                    message = .start(start)
                }
                if case .end = message { clientEnded = true }
                handler.received(message)
            } catch {
                handler.failed(error)
            }
        case .recognize:
            guard !requestTaken else {
                handler.failed(LegibleError(.invalidArgument, "Recognize takes one RecognizeRequest; a second arrived"))
                return
            }
            requestTaken = true
            do throws(LegibleError) {
                let request = try ProtobufCodec.decodeRecognizeRequest(payload)
                handler.received(
                    .start(StartSession(clientName: "grpc", authToken: bearerToken ?? "", options: request.options)))
                handler.received(.frame(request.frame))
                handler.received(.end)
            } catch {
                handler.failed(error)
            }
        }
    }

    /// The client half-closed the call (END_STREAM).
    func inputEnded() {
        guard !ended, !inputClosed, let handler else { return }
        inputClosed = true
        let midMessage = !deframer.isAtMessageBoundary
        if method == .stream && !midMessage && !clientEnded { handler.received(.end) }
        if method == .recognize && !requestTaken && !midMessage {
            handler.failed(LegibleError(.invalidArgument, "Recognize takes one RecognizeRequest; none arrived"))
        }
        _ = handler.inputEnded(midMessage: midMessage)
    }

    /// The client reset the call, or the connection is gone: nothing more is sent.
    func lost(reason: String) {
        guard !ended else { return }
        ended = true
        handler?.closed(reason: reason)
    }

    /// The call's `grpc-timeout` ran out: it ends with DEADLINE_EXCEEDED, and a client still
    /// sending is reset (RST_STREAM after the trailers).
    func deadlinePassed() {
        guard !ended else { return }
        status = (.deadlineExceeded, "the call's grpc-timeout passed")
        resetAfterFinish = true
        handler?.failed(LegibleError(.deadlineExceeded, "the call's grpc-timeout passed"))
        // A session that could not end cleanly (already closing) still ends now.
        if !ended { finish() }
    }

    /// Set when the call ends early (its deadline): the client may still be sending.
    private var resetAfterFinish = false

    // MARK: SessionStream

    func write(_ message: ServerMessage) {
        guard !ended else { return }
        switch (method, message) {
        case (.stream, .error(let error)):
            if error.fatal && status == nil { status = (LegibleError.Code(rawValue: error.code), error.message) }
            transport.send(ProtobufCodec.encode(message), on: id)
        case (.stream, _):
            transport.send(ProtobufCodec.encode(message), on: id)
        case (.recognize, .result(let result)):
            if let error = result.error, result.status == .failed {
                status = status ?? (LegibleError.Code(rawValue: error.code), error.message)
            } else if !sentResult && status == nil {
                sentResult = true
                transport.send(ProtobufCodec.encode(result), on: id)
            }
        case (.recognize, .error(let error)):
            status = status ?? (LegibleError.Code(rawValue: error.code), error.message)
        case (.recognize, _):
            break  // SessionStarted, the summary: a unary call answers with its FrameResult only
        }
    }

    func finish() {
        guard !ended else { return }
        ended = true
        var trailers = GRPCStatus.ok
        if let status {
            trailers = GRPCStatus.trailers(status.code, message: status.message)
        } else if method == .recognize && !sentResult {
            trailers = GRPCStatus.trailers(.internal, message: "the frame was not answered")
        }
        transport.finish(id, trailers: trailers, thenReset: resetAfterFinish)
        handler?.closed(reason: "finished")
    }

    func discardQueuedWrites() { transport.discardQueued(on: id) }

    func abort(reason: String) {
        guard !ended else { return }
        ended = true
        transport.reset(id)
        handler?.closed(reason: reason)
    }

    /// HTTP/2 reads everything as it arrives: nothing waits to be read.
    func readArrived() {}

    func sessionStarted() { deframer.maxMessageBytes = maxMessageBytes }

    var queuedBytes: Int { transport.queuedBytes(on: id) }

    /// Bytes of a request message not yet whole (what the client makes this call hold).
    var partialBytes: Int { deframer.bufferedByteCount }

    /// The call's queue went over `watermarks.high` or back under `watermarks.low`: tells the
    /// session (which closes a client that does not read for --write-stall-seconds).
    func checkBackpressure(_ watermarks: WriteWatermarks) {
        guard !ended else { return }
        let queued = queuedBytes
        let now = backedUp ? queued >= watermarks.low : queued > watermarks.high
        guard now != backedUp else { return }
        backedUp = now
        handler?.writeQueue(backedUp: now)
    }
}
