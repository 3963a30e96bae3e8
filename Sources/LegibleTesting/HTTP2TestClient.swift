internal import CNGHTTP2
internal import Glibc
public import LegibleHTTP2

/// A real HTTP/2 client (libnghttp2's client session) with no socket of its own: the test moves
/// its bytes (`outgoing`, `receive`) to the server under test and back, in memory or over a
/// socket. What the server answered is recorded per stream.
public final class HTTP2TestClient {
    private var session: OpaquePointer?
    public private(set) var responseHeaders: [Int32: [HTTP2Header]] = [:]
    public private(set) var trailers: [Int32: [HTTP2Header]] = [:]
    public private(set) var bodies: [Int32: [UInt8]] = [:]
    public private(set) var closed: [Int32: UInt32] = [:]
    public private(set) var goAwayLastStream: Int32?
    /// PING frames the server acknowledged.
    public private(set) var pingAcknowledgements = 0
    private var requestBodies: [Int32: [UInt8]] = [:]
    private var requestOffsets: [Int32: Int] = [:]
    private var endedRequests: Set<Int32> = []

    /// Body bytes per stream this client has told the server it read (`consumeReceived`).
    private var consumed: [Int32: Int] = [:]

    /// `assumedPeerMaxStreams`: how many streams the client may open before the server's
    /// SETTINGS arrive (nghttp2 assumes 100); more lets a test open more than the server allows.
    /// `initialWindowSize`: each stream's flow-control window, opened further only by
    /// `consumeReceived` (a client that reads its answers slowly, or not at all).
    public init(assumedPeerMaxStreams: UInt32? = nil, initialWindowSize: UInt32? = nil) {
        var callbacks: OpaquePointer?
        precondition(nghttp2_session_callbacks_new(&callbacks) == 0)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            let header = HTTP2Header(
                String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            let stream = frame!.pointee.hd.stream_id
            if frame!.pointee.headers.cat == NGHTTP2_HCAT_RESPONSE {
                client.responseHeaders[stream, default: []].append(header)
            } else {
                client.trailers[stream, default: []].append(header)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            client.bodies[stream, default: []].append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, code, user in
            Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue().closed[stream] = code
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            let header = frame!.pointee.hd
            if header.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
                client.goAwayLastStream = frame!.pointee.goaway.last_stream_id
            } else if header.type == UInt8(NGHTTP2_PING.rawValue)
                && header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
            {
                client.pingAcknowledgements += 1
            }
            return 0
        }
        var option: OpaquePointer?
        precondition(nghttp2_option_new(&option) == 0)
        defer { nghttp2_option_del(option) }
        if let assumedPeerMaxStreams { nghttp2_option_set_peer_max_concurrent_streams(option, assumedPeerMaxStreams) }
        if initialWindowSize != nil { nghttp2_option_set_no_auto_window_update(option, 1) }
        precondition(
            nghttp2_session_client_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option) == 0)
        var settings =
            initialWindowSize.map {
                [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: $0)]
            } ?? []
        precondition(
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0)
    }

    deinit { nghttp2_session_del(session) }

    /// Opens a stream: `headers`, then `body` (if any); the stream's side ends with the body
    /// unless `endStream` is false (then `send` adds more, and the last `send` ends it).
    public func request(_ headers: [HTTP2Header], body: [UInt8]?, endStream: Bool = true) -> Int32 {
        // nghttp2 copies names and values at submission; they live until the end of this call.
        let copies = headers.map { (strdup($0.name)!, strdup($0.value)!) }
        defer {
            for (name, value) in copies {
                free(name)
                free(value)
            }
        }
        let pairs = zip(headers, copies).map { header, copy in
            nghttp2_nv(
                name: UnsafeMutableRawPointer(copy.0).assumingMemoryBound(to: UInt8.self),
                value: UnsafeMutableRawPointer(copy.1).assumingMemoryBound(to: UInt8.self),
                namelen: header.name.utf8.count, valuelen: header.value.utf8.count,
                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        guard let body else { return nghttp2_submit_request(session, nil, pairs, pairs.count, nil, nil) }
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) {
            _, stream, buffer, length, flags, _, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            let body = client.requestBodies[stream] ?? []
            let offset = client.requestOffsets[stream] ?? 0
            let count = min(length, body.count - offset)
            body.withUnsafeBufferPointer { buffer!.update(from: $0.baseAddress! + offset, count: count) }
            client.requestOffsets[stream] = offset + count
            if offset + count == body.count {
                if client.endedRequests.contains(stream) {
                    flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                } else if count == 0 {
                    return Int(NGHTTP2_ERR_DEFERRED.rawValue)
                }
            }
            return count
        }
        let stream = nghttp2_submit_request(session, nil, pairs, pairs.count, &provider, nil)
        requestBodies[stream] = body
        if endStream { endedRequests.insert(stream) }
        return stream
    }

    /// More body bytes of a stream opened with `endStream: false`; `end` ends its side.
    public func send(_ bytes: [UInt8], on stream: Int32, end: Bool = false) {
        requestBodies[stream, default: []].append(contentsOf: bytes)
        if end { endedRequests.insert(stream) }
        _ = nghttp2_session_resume_data(session, stream)
    }

    /// Opens the windows again by every body byte received so far (WINDOW_UPDATE on the next
    /// `outgoing`), for a client made with `initialWindowSize`.
    public func consumeReceived() {
        for (stream, body) in bodies where body.count > consumed[stream, default: 0] {
            _ = nghttp2_session_consume(session, stream, body.count - consumed[stream, default: 0])
            consumed[stream] = body.count
        }
    }

    /// Sends a PING (a keepalive, as gRPC clients send them).
    public func ping() {
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    public func reset(_ stream: Int32) {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_CANCEL.rawValue)
    }

    public func outgoing() -> [UInt8] {
        var out: [UInt8] = []
        while true {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            guard count > 0, let chunk else { return out }
            out.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
        }
    }

    public func receive(_ bytes: [UInt8]) {
        let consumed = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        precondition(consumed == bytes.count)
    }

    /// The server's SETTINGS value `id` (RFC 9113's identifier) as this client received it.
    public func remoteSetting(_ id: Int32) -> UInt32 {
        nghttp2_session_get_remote_settings(session, nghttp2_settings_id(UInt32(id)))
    }
}
