internal import LegibleCore
internal import LegibleHTTP2
internal import LegibleWire

/// Fuzz target (e): the server side of one HTTP/2 connection — `HTTP2ServerConnection` on
/// libnghttp2, and `GRPCRequest` reading each call's headers — fed a client's bytes in
/// arbitrary chunks and answering as `HTTP2Transport` does.
///
/// Input layout:
///
/// ```
/// +------+---------------------------+=====================================+
/// | mode |  chunking seed, 8 bytes   |  what the client writes             |
/// +------+---------------------------+=====================================+
/// ```
///
/// `mode` bit 0: the client preface is put in front (so mutations start past it; clear, the
/// input must bring its own); bit 1: each call's messages are answered as they come (a
/// stream), else once at its end; bit 2: now and then a call's queued answers are discarded
/// (a backed-up session) or the call is reset (a deadline); bit 3: GOAWAY halfway through
/// (a drain). The seed cuts the bytes into chunks as a socket might deliver them.
///
/// Oracles: no crash and no sanitizer report; every request's and trailer's header list within
/// `maxHeaderListBytes` as HTTP/2 sizes it (32 octets per field); each stream's events in order
/// (its request first, on an odd id above the last; data, trailers and its end only after
/// it; nothing after its end but a reset, and nothing at all after a reset); what the
/// connection writes is whole HTTP/2 frames after the server's SETTINGS.
public enum HTTP2Harness {
    /// The largest message a call takes (`--max-message-bytes` is larger; small here so that
    /// RESOURCE_EXHAUSTED is reached).
    static let maxMessageBytes = 4096

    private struct Call {
        var deframer = MessageDeframer(maxMessageBytes: HTTP2Harness.maxMessageBytes)
        /// Refused at its headers (answered trailers-only): its data is read and ignored.
        var refused = false
        /// The client's END_STREAM came.
        var ended = false
        /// The server's trailers were queued.
        var finished = false
        var messages = 0
    }

    public static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let mode = input.byte()
        var random = SplitMix64(state: input.integer(UInt64.self))
        let bytes = (mode & 1 != 0 ? ProtocolSniffer.http2Preface : []) + input.rest
        let answersAsTheyCome = mode & 2 != 0
        let interferes = mode & 4 != 0
        let goesAwayHalfway = mode & 8 != 0

        guard let connection = try? HTTP2ServerConnection() else {
            invariant(false, "a connection could not be made")
            return
        }
        var calls: [Int32: Call] = [:]
        var closed: Set<Int32> = []
        var lastRequest: Int32 = 0
        var written: [UInt8] = []

        func headerListFits(_ headers: [HTTP2Header]) -> Bool {
            let size = headers.reduce(0) {
                $0 + $1.name.utf8.count + $1.value.utf8.count + HTTP2ServerConnection.headerFieldOverhead
            }
            return size <= HTTP2ServerConnection.maxHeaderListBytes
        }

        func answer(_ stream: Int32, _ message: [UInt8]) {
            try? connection.send(stream: stream, bytes: MessageFraming.frame(Array(message.prefix(64))))
        }

        func finish(_ stream: Int32, _ code: LegibleError.Code?, message: String = "", thenReset: Bool = false) {
            guard var call = calls[stream], !call.refused, !call.finished else { return }
            call.finished = true
            calls[stream] = call
            let trailers = code.map { GRPCStatus.trailers($0, message: message) } ?? GRPCStatus.ok
            try? connection.finish(stream: stream, trailers: trailers, thenReset: thenReset)
        }

        func handle(_ event: HTTP2Event) {
            switch event {
            case .request(let stream, let headers):
                invariant(stream % 2 == 1 && stream > lastRequest, "request on stream \(stream) after \(lastRequest)")
                invariant(calls[stream] == nil && !closed.contains(stream), "a second request on stream \(stream)")
                invariant(headerListFits(headers), "a header list past the limit on stream \(stream)")
                lastRequest = stream
                do throws(GRPCRequest.Refusal) {
                    _ = try GRPCRequest(headers: headers)
                    calls[stream] = Call()
                    try? connection.respond(
                        stream: stream,
                        headers: [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")])
                } catch {
                    calls[stream] = Call(refused: true, finished: true)
                    try? connection.respondHeadersOnly(stream: stream, headers: GRPCStatus.refusalHeaders(error))
                }
            case .data(let stream, let chunk):
                invariant(calls[stream].map { !$0.ended } ?? false, "data on stream \(stream) outside its request")
                guard var call = calls[stream], !call.refused, !call.finished else { return }
                call.deframer.append(chunk)
                var failure: LegibleError?
                do throws(LegibleError) {
                    while let message = try call.deframer.next() {
                        call.messages += 1
                        if answersAsTheyCome { answer(stream, message) }
                    }
                } catch {
                    failure = error
                }
                calls[stream] = call
                if let failure { finish(stream, failure.code, message: failure.message, thenReset: true) }
            case .trailers(let stream, let headers):
                invariant(calls[stream].map { !$0.ended } ?? false, "trailers on stream \(stream) outside its request")
                invariant(headerListFits(headers), "a trailer list past the limit on stream \(stream)")
            case .endStream(let stream):
                invariant(calls[stream].map { !$0.ended } ?? false, "a second end of stream \(stream)")
                calls[stream]?.ended = true
                if let call = calls[stream], !answersAsTheyCome, call.messages > 0 {
                    answer(stream, Array("\(call.messages) messages".utf8))
                }
                finish(stream, nil)
            case .reset(let stream, _):
                // A stream refused at its headers is reset without a request event.
                invariant(!closed.contains(stream), "stream \(stream) reset twice")
                calls[stream] = nil
                closed.insert(stream)
            case .goAway:
                break
            }
        }

        var offset = 0
        var wentAway = false
        while offset < bytes.count {
            let count: Int
            switch random.below(6) {
            case 0: count = 1
            case 1: count = bytes.count - offset
            case 2: count = 9 + random.below(8)
            default: count = 1 + random.below(512)
            }
            let chunk = bytes[offset..<min(bytes.count, offset + count)]
            offset += chunk.count
            let outcome = chunk.withUnsafeBytes { buffer in
                Result { () throws(LegibleError) in try connection.receive(buffer) }
            }
            guard case .success(let events) = outcome else {
                // A protocol error: the GOAWAY nghttp2 queued is written, then the socket closes.
                written += (try? connection.outgoingBytes()) ?? []
                break
            }
            events.forEach(handle)
            if interferes, let stream = calls.keys.sorted().first(where: { !calls[$0]!.finished }) {
                switch random.below(8) {
                case 0: connection.discardQueued(stream: stream)
                case 1:
                    try? connection.reset(stream: stream, errorCode: 8)
                    calls[stream]!.finished = true
                default: break
                }
            }
            if goesAwayHalfway, !wentAway, offset >= bytes.count / 2 {
                wentAway = true
                try? connection.goAway()
            }
            guard let out = try? connection.outgoingBytes() else { break }
            written += out
        }
        _ = connection.hasResponsesInFlight
        _ = connection.isFinished

        // The server's side: its SETTINGS first, then whole frames only.
        var at = 0
        var first = true
        while at < written.count {
            invariant(written.count - at >= 9, "a partial frame header at byte \(at) of \(written.count)")
            let length = Int(written[at]) << 16 | Int(written[at + 1]) << 8 | Int(written[at + 2])
            if first {
                invariant(written[at + 3] == 0x4 && written[at + 4] & 1 == 0, "the first frame is not SETTINGS")
            }
            first = false
            at += 9 + length
            invariant(at <= written.count, "a frame longer than what was written")
        }
    }
}
