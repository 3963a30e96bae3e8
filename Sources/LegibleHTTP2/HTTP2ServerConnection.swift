internal import CNGHTTP2
public import LegibleCore

/// One header field of a request or response, as bytes on the wire would carry it.
public struct HTTP2Header: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): \(value)" }
}

/// What the connection's peer did, in the order its bytes said it.
public enum HTTP2Event: Sendable, Hashable {
    /// A stream opened with these headers (pseudo-headers first, as sent).
    case request(stream: Int32, headers: [HTTP2Header])
    /// Part of a stream's body, in order.
    case data(stream: Int32, bytes: [UInt8])
    /// Trailers after a request's body (gRPC clients send none, but HTTP/2 allows them).
    case trailers(stream: Int32, headers: [HTTP2Header])
    /// The peer sent the last of the stream (END_STREAM): its request is complete.
    case endStream(stream: Int32)
    /// The peer reset the stream (RST_STREAM with this error code): no more is read or sent.
    case reset(stream: Int32, errorCode: UInt32)
    /// The peer is going away: streams above `lastStream` were not processed.
    case goAway(lastStream: Int32, errorCode: UInt32)
}

/// The server side of one HTTP/2 connection, on libnghttp2, with no socket and no thread of
/// its own: bytes read from the connection go in (`receive`), what happened comes out as
/// `HTTP2Event`s, responses are queued (`respond`, `send`, `finish`), and `outgoingBytes`
/// hands back what to write. The transport that owns the socket drives it from its event
/// loop, as it drives the framed protocol's deframer.
///
/// nghttp2's own checks of HTTP messaging are off (`no_http_messaging`): it rejects the raw
/// Unix socket path grpcurl sends as `:authority`, so the gRPC layer checks the
/// pseudo-headers it needs itself.
public final class HTTP2ServerConnection {
    /// What this side announces in its SETTINGS.
    public struct Settings: Sendable, Hashable {
        /// Streams a client may have open at once.
        public var maxConcurrentStreams: UInt32 = 100
        /// Each stream's receive window: a 720p JPEG (~100–300 KB) or a raw GRAY8 frame
        /// (~0.9 MB) arrives without waiting for a WINDOW_UPDATE (the default is 64 KiB).
        public var initialStreamWindow: UInt32 = 4 << 20
        /// The connection's receive window, shared by its streams.
        public var connectionWindow: Int32 = 16 << 20
        /// The largest frame a peer may send.
        public var maxFrameSize: UInt32 = 1 << 20
        /// RST_STREAMs a client may send at once, then per second, before the connection is
        /// torn down with GOAWAY: opening calls and resetting them at once ("rapid reset",
        /// CVE-2023-44487) costs the server a session each. A token bucket in nghttp2.
        public var resetBurst: UInt64 = 200
        public var resetsPerSecond: UInt64 = 33

        public init() {}
    }

    private var session: OpaquePointer?
    /// Events decoded by the callbacks during one `receive`.
    private var events: [HTTP2Event] = []
    /// Headers of the HEADERS frame being received, per stream.
    private var pendingHeaders: [Int32: PendingHeaders] = [:]

    /// A header list as it arrives, with its size as HTTP/2 counts it (RFC 9113 §6.5.2: each
    /// field's name and value plus 32 octets), kept as it grows so that each field costs O(1).
    private struct PendingHeaders {
        var fields: [HTTP2Header] = []
        var size = 0
        /// Past `maxHeaderListBytes`: the fields were let go and the stream is being reset.
        var refused = false
    }
    /// Response bodies waiting for nghttp2 to ask for them, per stream.
    private var outbound: [Int32: Outbound] = [:]

    private struct Outbound {
        var bytes: [UInt8] = []
        var offset = 0
        /// Where each `send` call's bytes end in `bytes` (so a discard keeps a message whole).
        var sendEnds: [Int] = []
        /// Trailers to send once the bytes are out (nil: not finished yet).
        var trailers: [HTTP2Header]?
        /// nghttp2 was told to wait (`NGHTTP2_ERR_DEFERRED`) and must be resumed.
        var deferred = false
    }

    public init(settings: Settings = Settings()) throws(LegibleError) {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw LegibleError(.internal, "nghttp2: no memory for callbacks")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)

        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else {
            throw LegibleError(.internal, "nghttp2: no memory for options")
        }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_no_http_messaging(option, 1)
        nghttp2_option_set_stream_reset_rate_limit(option, settings.resetBurst, settings.resetsPerSecond)

        let status = nghttp2_session_server_new2(
            &session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        guard status == 0, let session else {
            throw LegibleError(.internal, "nghttp2: \(Self.message(status))")
        }
        var entries = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: settings.maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialStreamWindow),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue), value: settings.maxFrameSize),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(Self.maxHeaderListBytes)),
        ]
        try Self.check(nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count))
        try Self.check(
            nghttp2_session_set_local_window_size(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, settings.connectionWindow))
    }

    deinit { nghttp2_session_del(session) }

    /// Feeds bytes read from the connection; returns what they made happen. A protocol error
    /// (a bad preface, a malformed frame) throws: queue a GOAWAY is already done by nghttp2,
    /// so write `outgoingBytes()` and close.
    public func receive(_ bytes: UnsafeRawBufferPointer) throws(LegibleError) -> [HTTP2Event] {
        events.removeAll(keepingCapacity: true)
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return [] }
        let consumed = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard consumed >= 0 else {
            throw LegibleError(.invalidArgument, "HTTP/2: \(Self.message(Int32(truncatingIfNeeded: consumed)))")
        }
        let happened = events
        events = []
        return happened
    }

    /// Starts the response of `stream` with `headers` (`:status` first); its body follows with
    /// `send` and it ends with `finish`.
    public func respond(stream: Int32, headers: [HTTP2Header]) throws(LegibleError) {
        outbound[stream] = Outbound()
        var provider = nghttp2_data_provider(
            source: nghttp2_data_source(ptr: nil), read_callback: onReadBody)
        try Self.withNameValues(headers) { (pairs: UnsafePointer<nghttp2_nv>, count: Int) throws(LegibleError) in
            try Self.check(nghttp2_submit_response(session, stream, pairs, count, &provider))
        }
    }

    /// Queues body bytes of a started response.
    public func send(stream: Int32, bytes: some Collection<UInt8>) throws(LegibleError) {
        guard outbound[stream] != nil else {
            throw LegibleError(.failedPrecondition, "HTTP/2: stream \(stream) has no response started")
        }
        outbound[stream]!.bytes.append(contentsOf: bytes)
        outbound[stream]!.sendEnds.append(outbound[stream]!.bytes.count)
        resumeIfDeferred(stream)
    }

    /// Body bytes of `stream` queued and not yet handed to nghttp2 (waiting for the peer's
    /// flow-control window or for the socket).
    public func queuedBytes(stream: Int32) -> Int {
        outbound[stream].map { $0.bytes.count - $0.offset } ?? 0
    }

    /// Forgets the body bytes of `stream` not yet begun: a `send` whose first bytes have left
    /// is kept whole, so the peer never reads half a message.
    public func discardQueued(stream: Int32) {
        guard var pending = outbound[stream] else { return }
        let kept = pending.offset == 0 ? 0 : pending.sendEnds.first { $0 >= pending.offset } ?? pending.bytes.count
        pending.bytes.removeSubrange(kept...)
        pending.sendEnds.removeAll { $0 > kept }
        outbound[stream] = pending
    }

    /// Ends a started response: its queued body, then `trailers` (gRPC's `grpc-status`). With
    /// `thenReset`, a client still sending on the stream is told to stop (RST_STREAM NO_ERROR
    /// once the trailers are out), as a server does when it ends a call early (a deadline).
    public func finish(stream: Int32, trailers: [HTTP2Header], thenReset: Bool = false) throws(LegibleError) {
        guard outbound[stream] != nil else {
            throw LegibleError(.failedPrecondition, "HTTP/2: stream \(stream) has no response started")
        }
        outbound[stream]!.trailers = trailers
        if thenReset { resetAfterTrailers.insert(stream) }
        resumeIfDeferred(stream)
    }

    /// Streams to reset once their trailers have been sent.
    private var resetAfterTrailers: Set<Int32> = []

    /// A frame left: after the trailers of a stream in `resetAfterTrailers` whose client has
    /// not ended its side, RST_STREAM NO_ERROR.
    fileprivate func frameSent(type: UInt8, flags: UInt8, stream: Int32) {
        guard type == UInt8(NGHTTP2_HEADERS.rawValue), flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
            resetAfterTrailers.remove(stream) != nil, nghttp2_session_get_stream_remote_close(session, stream) == 0
        else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_NO_ERROR.rawValue)
    }

    /// A response of headers only, ending the stream (gRPC's trailers-only error response).
    public func respondHeadersOnly(stream: Int32, headers: [HTTP2Header]) throws(LegibleError) {
        try Self.withNameValues(headers) { (pairs: UnsafePointer<nghttp2_nv>, count: Int) throws(LegibleError) in
            try Self.check(nghttp2_submit_response(session, stream, pairs, count, nil))
        }
    }

    /// Resets `stream` (RST_STREAM), e.g. CANCEL (8) when a deadline passed.
    public func reset(stream: Int32, errorCode: UInt32) throws(LegibleError) {
        outbound[stream] = nil
        try Self.check(nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, errorCode))
    }

    /// Announces that no new stream will be processed (GOAWAY with NO_ERROR and the last
    /// stream seen): streams already open finish; the connection closes when they have.
    public func goAway() throws(LegibleError) {
        try Self.check(
            nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
                NGHTTP2_NO_ERROR.rawValue, nil, 0))
    }

    /// A response started whose end has not yet been handed to nghttp2: body bytes or trailers
    /// still queued (a call not finished, or the peer's flow-control window closed on them).
    /// A connection that closes now would cut those responses short.
    public var hasResponsesInFlight: Bool { !outbound.isEmpty }

    /// nghttp2 wants neither to read nor to write: after a GOAWAY it sent (a protocol error, a
    /// flood of resets) or both sides' GOAWAY with no stream left. Close the connection once
    /// `outgoingBytes` is written.
    public var isFinished: Bool {
        nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// Everything queued to write, in order (the preface's SETTINGS, responses, pings'
    /// answers, WINDOW_UPDATEs); empty when there is nothing.
    public func outgoingBytes() throws(LegibleError) -> [UInt8] {
        var out: [UInt8] = []
        while true {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            guard count >= 0 else {
                throw LegibleError(.internal, "HTTP/2: \(Self.message(Int32(truncatingIfNeeded: count)))")
            }
            guard count > 0, let chunk else { return out }
            out.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
        }
    }

    // MARK: nghttp2's callbacks, through the session's user data

    fileprivate func beginHeaders(stream: Int32) { pendingHeaders[stream] = PendingHeaders() }

    /// The largest header list a request may carry, counted as HTTP/2 counts it (names, values
    /// and 32 octets per field; announced as SETTINGS_MAX_HEADER_LIST_SIZE); more resets the
    /// stream. The per-field octets bound how many fields a list holds: without them a block of
    /// one-byte references to an empty field in HPACK's table never reached the limit.
    public static let maxHeaderListBytes = 16 << 10
    /// What HTTP/2 adds to each field's name and value when it sizes a header list.
    public static let headerFieldOverhead = 32

    /// Whether the header was taken: false when the stream's headers grew past
    /// `maxHeaderListBytes` (nghttp2 then resets the stream and ignores the rest of the block).
    fileprivate func header(stream: Int32, name: String, value: String) -> Bool {
        // Only the size and the flag are read here: a copy of the list held across the append
        // would make it copy the whole list, each field again.
        let size = (pendingHeaders[stream]?.size ?? 0) + name.utf8.count + value.utf8.count + Self.headerFieldOverhead
        guard pendingHeaders[stream]?.refused != true, size <= Self.maxHeaderListBytes else {
            pendingHeaders[stream] = PendingHeaders(refused: true)
            return false
        }
        pendingHeaders[stream, default: PendingHeaders()].fields.append(HTTP2Header(name, value))
        pendingHeaders[stream]!.size = size
        return true
    }

    fileprivate func frameReceived(type: UInt8, flags: UInt8, stream: Int32, headersCategory: nghttp2_headers_category?)
    {
        let endStream = flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch Int(type) {
        case Int(NGHTTP2_HEADERS.rawValue):
            let pending = pendingHeaders.removeValue(forKey: stream) ?? PendingHeaders()
            guard !pending.refused else { return }
            let headers = pending.fields
            events.append(
                headersCategory == NGHTTP2_HCAT_REQUEST
                    ? .request(stream: stream, headers: headers) : .trailers(stream: stream, headers: headers))
            if endStream { events.append(.endStream(stream: stream)) }
        case Int(NGHTTP2_DATA.rawValue) where endStream:
            // After the frame's chunks (`dataChunk`).
            events.append(.endStream(stream: stream))
        default:
            break
        }
    }

    /// Consecutive chunks of one stream make one event: a client's many small DATA frames
    /// cost one array and one event, not one of each per frame.
    fileprivate func dataChunk(stream: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard case .data(stream, var joined) = events.last else {
            events.append(.data(stream: stream, bytes: Array(bytes)))
            return
        }
        events.removeLast()  // `joined` is then the array's only owner: appended in place
        joined.append(contentsOf: bytes)
        events.append(.data(stream: stream, bytes: joined))
    }

    fileprivate func streamClosed(stream: Int32, errorCode: UInt32) {
        outbound[stream] = nil
        pendingHeaders[stream] = nil
        resetAfterTrailers.remove(stream)
        if errorCode != NGHTTP2_NO_ERROR.rawValue { events.append(.reset(stream: stream, errorCode: errorCode)) }
    }

    fileprivate func goAwayReceived(lastStream: Int32, errorCode: UInt32) {
        events.append(.goAway(lastStream: lastStream, errorCode: errorCode))
    }

    /// Copies up to `length` queued body bytes of `stream` into `buffer`; at the end of a
    /// finished body, submits its trailers.
    fileprivate func readBody(
        stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard var pending = outbound[stream] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(length, pending.bytes.count - pending.offset)
        if count > 0 {
            pending.bytes.withUnsafeBufferPointer { bytes in
                buffer.update(from: bytes.baseAddress! + pending.offset, count: count)
            }
            pending.offset += count
            if pending.offset == pending.bytes.count {
                pending.bytes.removeAll(keepingCapacity: true)
                pending.sendEnds.removeAll(keepingCapacity: true)
                pending.offset = 0
            }
        }
        if pending.offset == pending.bytes.count, let trailers = pending.trailers {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue | NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
            outbound[stream] = nil
            let submitted = Self.withNameValues(trailers) { pairs, count in
                nghttp2_submit_trailer(session, stream, pairs, count)
            }
            return submitted == 0 ? count : Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
        }
        if count == 0 {
            pending.deferred = true
            outbound[stream] = pending
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        outbound[stream] = pending
        return count
    }

    private func resumeIfDeferred(_ stream: Int32) {
        guard outbound[stream]?.deferred == true else { return }
        outbound[stream]!.deferred = false
        nghttp2_session_resume_data(session, stream)
    }

    // MARK: Helpers

    private static func check(_ status: Int32) throws(LegibleError) {
        guard status == 0 else { throw LegibleError(.internal, "HTTP/2: \(message(status))") }
    }

    static func message(_ status: Int32) -> String { String(cString: nghttp2_strerror(status)) }

    /// `headers` as nghttp2's name-value pairs for the length of `body` (nghttp2 copies them).
    static func withNameValues<Result, Failure: Error>(
        _ headers: [HTTP2Header], _ body: (UnsafePointer<nghttp2_nv>, Int) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var storage: [UInt8] = []
        var ranges: [(name: Range<Int>, value: Range<Int>)] = []
        for header in headers {
            let nameStart = storage.count
            storage.append(contentsOf: header.name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: header.value.utf8)
            ranges.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        storage.append(0)  // a valid address even when every header is empty
        let outcome: Swift.Result<Result, Failure> = storage.withUnsafeMutableBufferPointer { bytes in
            let pairs = ranges.map { range in
                nghttp2_nv(
                    name: bytes.baseAddress! + range.name.lowerBound,
                    value: bytes.baseAddress! + range.value.lowerBound,
                    namelen: range.name.count, valuelen: range.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return pairs.withUnsafeBufferPointer { pairs in
                Swift.Result { () throws(Failure) in try body(pairs.baseAddress!, pairs.count) }
            }
        }
        return try outcome.get()
    }
}

// MARK: C callbacks (no captures: the connection comes back through `user_data`)

private func connection(_ userData: UnsafeMutableRawPointer?) -> HTTP2ServerConnection {
    Unmanaged<HTTP2ServerConnection>.fromOpaque(userData!).takeUnretainedValue()
}

private func text(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> String {
    guard let bytes, count > 0 else { return "" }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame else { return 0 }
    connection(userData).beginHeaders(stream: frame.pointee.hd.stream_id)
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame else { return 0 }
    let taken = connection(userData).header(
        stream: frame.pointee.hd.stream_id, name: text(name, nameLength), value: text(value, valueLength))
    return taken ? 0 : Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
}

private let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let header = frame.pointee.hd
    let target = connection(userData)
    if header.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
        target.goAwayReceived(
            lastStream: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code)
        return 0
    }
    let category = header.type == UInt8(NGHTTP2_HEADERS.rawValue) ? frame.pointee.headers.cat : nil
    target.frameReceived(type: header.type, flags: header.flags, stream: header.stream_id, headersCategory: category)
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, userData in
    connection(userData).dataChunk(stream: stream, bytes: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, stream, errorCode, userData in
    connection(userData).streamClosed(stream: stream, errorCode: errorCode)
    return 0
}

private let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
    guard let frame else { return 0 }
    connection(userData).frameSent(
        type: frame.pointee.hd.type, flags: frame.pointee.hd.flags, stream: frame.pointee.hd.stream_id)
    return 0
}

private let onReadBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, userData in
    connection(userData).readBody(stream: stream, into: buffer!, length: length, flags: flags!)
}
