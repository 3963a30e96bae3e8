internal import CNGHTTP2
public import LegibleCore
public import LegibleSockets
internal import LegibleWire

/// One gRPC call over its own HTTP/2 connection (libnghttp2's client session, cleartext with
/// prior knowledge), as a `MessageStream`: what `enqueue` takes is the call's request stream,
/// `nextMessage` its responses. The clients (`legible --transport grpc`, `legible-load`) run the
/// framed protocol's session through it unchanged: `Recognizer/Stream` carries the same
/// messages. Blocking or not is the socket's mode, as for `FramedStream`.
///
/// The call's end (the server's trailers) reads as the end of the stream: the session's
/// errors arrive in-band, as messages, before it. Tags given to `enqueue` are reported by `flush` once the message's last byte has
/// been written to the socket.
public final class GRPCClientStream: MessageStream {
    public let socket: Socket
    private var session: OpaquePointer?
    private var streamID: Int32 = -1
    /// The call's stream, for the callbacks.
    fileprivate var callID: Int32 { streamID }
    private var deframer: MessageDeframer
    /// Request bytes not yet handed to nghttp2, from `requestOffset` on.
    private var request: [UInt8] = []
    private var requestOffset = 0
    /// Tags of queued messages and where each ends, counted in request bytes since the start.
    private var tags: [(end: Int, tag: Int)] = []
    /// Request bytes handed to nghttp2 since the start, and those of them written to the socket.
    private var handedOver = 0
    private var written = 0
    /// Bytes nghttp2 produced that the socket has not taken, and where in them each piece that
    /// carries request bytes ends.
    private var pending = UnsentBytes()
    private var pendingRequestBytes: [(endOffset: Int, requestBytes: Int)] = []
    private var deferred = false
    private var closed = false

    /// Opens the HTTP/2 connection on `socket` (connected) and the call `path` on it.
    public init(
        socket: Socket, path: String = "/legible.v1.Recognizer/Stream", authority: String = "localhost",
        maxMessageBytes: Int, metadata: [(String, String)] = []
    ) throws(LegibleError) {
        self.socket = socket
        deframer = MessageDeframer(maxMessageBytes: maxMessageBytes)
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw LegibleError(.internal, "nghttp2: no memory for callbacks")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onClientData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onClientStreamClose)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onClientFrame)
        guard nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0 else {
            throw LegibleError(.internal, "nghttp2: cannot make a client session")
        }
        // The responses are small (results), the window of the connection wide for bursts.
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 4 << 20)
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0
        else {
            throw LegibleError(.internal, "nghttp2: cannot queue SETTINGS")
        }
        let headers =
            [
                HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "http"), HTTP2Header(":path", path),
                HTTP2Header(":authority", authority), HTTP2Header("content-type", "application/grpc"),
                HTTP2Header("te", "trailers"),
            ] + metadata.map { HTTP2Header($0.0, $0.1) }
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: onClientReadBody)
        streamID = HTTP2ServerConnection.withNameValues(headers) { pairs, count in
            nghttp2_submit_request(session, nil, pairs, count, &provider, nil)
        }
        guard streamID > 0 else {
            throw LegibleError(.internal, "nghttp2: \(HTTP2ServerConnection.message(streamID))")
        }
    }

    deinit { nghttp2_session_del(session) }

    // MARK: MessageStream

    public func enqueue(_ payload: [UInt8], tag: Int?) {
        MessageFraming.appendFrame(payload, to: &request)
        if let tag { tags.append((handedOver + request.count - requestOffset, tag)) }
        if deferred {
            deferred = false
            nghttp2_session_resume_data(session, streamID)
        }
    }

    public var hasQueuedBytes: Bool {
        requestOffset < request.count || !pending.isEmpty || nghttp2_session_want_write(session) != 0
    }

    @discardableResult
    public func flush(sent: (Int) -> Void) throws(LegibleError) -> Int {
        var total = 0
        while true {
            if pending.isEmpty {
                try produce()
                if pending.isEmpty { break }
            }
            let count = try pending.send(to: socket)
            if count == 0 { break }
            total += count
            // Request bytes count as written once the frame that carries them is.
            while let first = pendingRequestBytes.first, first.endOffset <= pending.offset {
                written += first.requestBytes
                pendingRequestBytes.removeFirst()
            }
            while let first = tags.first, first.end <= written {
                sent(first.tag)
                tags.removeFirst()
            }
        }
        return total
    }

    /// What nghttp2 has to send now, with the request bytes each piece carries.
    private func produce() throws(LegibleError) {
        var produced: [UInt8] = []
        pendingRequestBytes.removeAll()
        defer { pending.replace(with: produced) }
        while true {
            let before = handedOver
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            guard count >= 0 else {
                throw LegibleError(.unavailable, "HTTP/2: \(HTTP2ServerConnection.message(Int32(count)))")
            }
            guard count > 0, let chunk else { return }
            produced.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
            if handedOver > before { pendingRequestBytes.append((produced.count, handedOver - before)) }
        }
    }

    public func readOnce() throws(LegibleError) -> FramedStream.ReadResult {
        if closed { return .endOfStream }
        return try withUnsafeTemporaryAllocation(byteCount: FramedStream.readChunk, alignment: 1) {
            (buffer) throws(LegibleError) -> FramedStream.ReadResult in
            guard let count = try socket.receive(into: buffer) else { return .wouldBlock }
            if count == 0 { return .endOfStream }
            let consumed = nghttp2_session_mem_recv(
                session, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
            guard consumed >= 0 else {
                throw LegibleError(.unavailable, "HTTP/2: \(HTTP2ServerConnection.message(Int32(consumed)))")
            }
            // WINDOW_UPDATEs and SETTINGS acknowledgements go out with the next flush; send them
            // now so that a client that only reads does not stall the server's window.
            try flush(sent: { _ in })
            return .received(count)
        }
    }

    public func nextMessage() throws(LegibleError) -> [UInt8]? { try deframer.next() }

    public var isAtMessageBoundary: Bool { deframer.isAtMessageBoundary }

    public func discardQueue() {
        request.removeAll()
        requestOffset = 0
        tags.removeAll()
    }

    /// Ends the request stream (END_STREAM after what is queued): the server ends its session
    /// as after EndSession.
    public func finishRequest() {
        closedRequest = true
        if deferred {
            deferred = false
            nghttp2_session_resume_data(session, streamID)
        }
    }

    private var closedRequest = false

    // MARK: nghttp2's callbacks

    fileprivate func data(_ bytes: UnsafeBufferPointer<UInt8>) { deframer.append(bytes) }

    /// The server ended its side of the call (its trailers): the call is over for this
    /// client, whose own side ends too.
    fileprivate func serverEnded() {
        closed = true
        finishRequest()
    }

    fileprivate func streamClosed() { closed = true }

    fileprivate func readBody(
        into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    )
        -> Int
    {
        let count = min(length, request.count - requestOffset)
        if count > 0 {
            request.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + requestOffset, count: count) }
            requestOffset += count
            handedOver += count
            if requestOffset == request.count {
                request.removeAll(keepingCapacity: true)
                requestOffset = 0
            }
            return count
        }
        if closedRequest {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        deferred = true
        return Int(NGHTTP2_ERR_DEFERRED.rawValue)
    }
}

private func client(_ userData: UnsafeMutableRawPointer?) -> GRPCClientStream {
    Unmanaged<GRPCClientStream>.fromOpaque(userData!).takeUnretainedValue()
}

private let onClientData: nghttp2_on_data_chunk_recv_callback = { _, _, _, data, length, userData in
    client(userData).data(UnsafeBufferPointer(start: data, count: length))
    return 0
}

private let onClientStreamClose: nghttp2_on_stream_close_callback = { _, _, _, userData in
    client(userData).streamClosed()
    return 0
}

private let onClientFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let header = frame.pointee.hd
    let ends = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    let target = client(userData)
    if ends && header.stream_id == target.callID
        && (header.type == UInt8(NGHTTP2_HEADERS.rawValue) || header.type == UInt8(NGHTTP2_DATA.rawValue))
    {
        target.serverEnded()
    }
    return 0
}

private let onClientReadBody: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, _, userData in
    client(userData).readBody(into: buffer!, length: length, flags: flags!)
}
