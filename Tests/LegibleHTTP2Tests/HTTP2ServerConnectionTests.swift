import CNGHTTP2
import Glibc
import LegibleCore
import LegibleHTTP2
import LegibleTesting
import Testing

extension HTTP2ServerConnection {
    func receive(_ bytes: [UInt8]) throws(LegibleError) -> [HTTP2Event] {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(LegibleError) in try receive(buffer) } }
        return try result.get()
    }
}

/// A gRPC request's headers as grpcio sends them over a Unix socket.
private func grpcRequest(_ path: String) -> [HTTP2Header] {
    [
        HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "http"), HTTP2Header(":path", path),
        HTTP2Header(":authority", "unix:/tmp/legible.sock"), HTTP2Header("content-type", "application/grpc"),
        HTTP2Header("te", "trailers"),
    ]
}

/// A gRPC length-prefixed message: flag 0, 4-byte big-endian length, the bytes.
private func grpcMessage(_ payload: [UInt8]) -> [UInt8] {
    let n = UInt32(payload.count)
    return [0, UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + payload
}

/// Moves bytes both ways until neither side has more to write; the server's events in order.
private func exchange(_ client: HTTP2TestClient, _ server: HTTP2ServerConnection) throws -> [HTTP2Event] {
    var events: [HTTP2Event] = []
    for _ in 0..<16 {
        let toServer = client.outgoing()
        if !toServer.isEmpty { events += try server.receive(toServer) }
        let toClient = try server.outgoingBytes()
        if !toClient.isEmpty { client.receive(toClient) }
        if toServer.isEmpty && toClient.isEmpty { return events }
    }
    Issue.record("the two sides kept writing")
    return events
}

/// An HTTP/2 frame as a client writes it (RFC 9113 §4.1): 24-bit length, type, flags, stream.
private func rawFrame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
    let n = UInt32(payload.count)
    return [UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff), type, flags]
        + [UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
        + payload
}

/// `headers` as an HPACK block of literal fields without indexing, no Huffman coding (names
/// and values under 128 bytes).
private func literalFields(_ headers: [HTTP2Header]) -> [UInt8] {
    headers.flatMap { header -> [UInt8] in
        [0x00, UInt8(header.name.utf8.count)] + Array(header.name.utf8) + [UInt8(header.value.utf8.count)]
            + Array(header.value.utf8)
    }
}

/// The frames a server wrote, by type and stream.
private func frames(in bytes: [UInt8]) -> [(type: UInt8, stream: UInt32)] {
    var found: [(type: UInt8, stream: UInt32)] = []
    var offset = 0
    while offset + 9 <= bytes.count {
        let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
        let stream = bytes[offset + 5..<offset + 9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
        found.append((bytes[offset + 3], stream))
        offset += 9 + length
    }
    return found
}

/// A client and a server, not yet talking.
private func connected() throws -> (HTTP2TestClient, HTTP2ServerConnection) {
    (HTTP2TestClient(), try HTTP2ServerConnection())
}

/// Every body byte of `stream` among `events`, in order.
private func body(of stream: Int32, in events: [HTTP2Event]) -> [UInt8] {
    events.flatMap { event -> [UInt8] in
        if case .data(stream, let bytes) = event { return bytes }
        return []
    }
}

struct HTTP2ServerConnectionTests {
    /// A unary call as a stock client makes it: headers, one message, END_STREAM; answered with
    /// headers, one message and `grpc-status` trailers.
    @Test func aUnaryCallRoundTrips() throws {
        let (client, server) = try connected()
        let message = grpcMessage(Array("frame".utf8))
        let stream = client.request(grpcRequest("/legible.v1.Recognizer/Recognize"), body: message)
        let events = try exchange(client, server)
        #expect(events.first == .request(stream: stream, headers: grpcRequest("/legible.v1.Recognizer/Recognize")))
        #expect(body(of: stream, in: events) == message)
        #expect(events.last == .endStream(stream: stream))

        let answer = grpcMessage(Array("text".utf8))
        try server.respond(
            stream: stream, headers: [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")])
        try server.send(stream: stream, bytes: answer)
        try server.finish(stream: stream, trailers: [HTTP2Header("grpc-status", "0")])
        _ = try exchange(client, server)
        #expect(client.responseHeaders[stream]?.first == HTTP2Header(":status", "200"))
        #expect(client.bodies[stream] == answer)
        #expect(client.trailers[stream] == [HTTP2Header("grpc-status", "0")])
        #expect(client.closed[stream] == NGHTTP2_NO_ERROR.rawValue)
    }

    /// A stream's response body may be written as results come (a camera stream): nothing is
    /// sent until there is something, and the trailers follow the last message.
    @Test func aStreamedResponseGoesOutAsItIsWritten() throws {
        let (client, server) = try connected()
        let stream = client.request(grpcRequest("/legible.v1.Recognizer/Stream"), body: nil)
        let events = try exchange(client, server)
        // No body: this client's HEADERS end its side of the stream.
        #expect(
            events == [
                .request(stream: stream, headers: grpcRequest("/legible.v1.Recognizer/Stream")),
                .endStream(stream: stream),
            ])
        try server.respond(stream: stream, headers: [HTTP2Header(":status", "200")])
        _ = try exchange(client, server)
        #expect(client.responseHeaders[stream] != nil && client.bodies[stream] == nil)
        for word in ["one", "two"] {
            try server.send(stream: stream, bytes: grpcMessage(Array(word.utf8)))
            _ = try exchange(client, server)
        }
        #expect(client.bodies[stream] == grpcMessage(Array("one".utf8)) + grpcMessage(Array("two".utf8)))
        #expect(client.trailers[stream] == nil && client.closed[stream] == nil)
        try server.finish(stream: stream, trailers: [HTTP2Header("grpc-status", "0")])
        _ = try exchange(client, server)
        #expect(client.trailers[stream] == [HTTP2Header("grpc-status", "0")])
    }

    /// A 720p camera frame (a raw GRAY8 frame is 0.9 MB) arrives in one exchange: the server's
    /// windows are sized for it, where HTTP/2's default of 64 KiB would stall the upload
    /// until the server's WINDOW_UPDATE came back.
    @Test func aFrameOfAMegabyteArrivesWithoutWaitingForTheWindow() throws {
        let (client, server) = try connected()
        _ = try exchange(client, server)  // SETTINGS both ways
        #expect(client.remoteSetting(Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue)) == 4 << 20)
        #expect(client.remoteSetting(Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue)) == 100)
        let frame = grpcMessage((0..<(1280 * 720)).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let stream = client.request(grpcRequest("/legible.v1.Recognizer/Recognize"), body: frame)
        let events = try server.receive(client.outgoing())  // one write of the client's, no reply read
        let received = body(of: stream, in: events)
        // A Bool, not the arrays: a failed comparison of two megabyte arrays takes minutes to print.
        let whole = received == frame
        #expect(whole, "\(received.count) of \(frame.count) bytes arrived")
        let ended = events.last == .endStream(stream: stream)
        #expect(ended)
    }

    /// An error before any message is a trailers-only response: HEADERS with END_STREAM.
    @Test func aTrailersOnlyResponseEndsTheStream() throws {
        let (client, server) = try connected()
        let stream = client.request(grpcRequest("/legible.v1.Recognizer/Nope"), body: nil)
        _ = try exchange(client, server)
        try server.respondHeadersOnly(
            stream: stream,
            headers: [
                HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc"),
                HTTP2Header("grpc-status", "12"), HTTP2Header("grpc-message", "unknown%20method"),
            ])
        _ = try exchange(client, server)
        #expect(client.responseHeaders[stream]?.contains(HTTP2Header("grpc-status", "12")) == true)
        #expect(client.bodies[stream] == nil)
        #expect(client.closed[stream] == NGHTTP2_NO_ERROR.rawValue)
    }

    /// A client's RST_STREAM reaches the server as `.reset`; the stream's queued response is
    /// dropped, and the server may reset a stream itself (a deadline).
    @Test func resetsGoBothWays() throws {
        let (client, server) = try connected()
        let first = client.request(grpcRequest("/legible.v1.Recognizer/Stream"), body: nil)
        let second = client.request(grpcRequest("/legible.v1.Recognizer/Stream"), body: nil)
        _ = try exchange(client, server)
        try server.respond(stream: first, headers: [HTTP2Header(":status", "200")])
        client.reset(first)
        let events = try exchange(client, server)
        #expect(events.contains(.reset(stream: first, errorCode: NGHTTP2_CANCEL.rawValue)))
        #expect(throws: LegibleError.self) { try server.send(stream: first, bytes: [1]) }
        try server.reset(stream: second, errorCode: NGHTTP2_CANCEL.rawValue)
        _ = try exchange(client, server)
        #expect(client.closed[second] == NGHTTP2_CANCEL.rawValue)
    }

    /// Draining: GOAWAY names the last stream taken; streams open before it still finish.
    @Test func goAwayLetsOpenStreamsFinish() throws {
        let (client, server) = try connected()
        let stream = client.request(grpcRequest("/legible.v1.Recognizer/Stream"), body: nil)
        _ = try exchange(client, server)
        try server.goAway()
        _ = try exchange(client, server)
        #expect(client.goAwayLastStream == stream)
        try server.respond(stream: stream, headers: [HTTP2Header(":status", "200")])
        try server.finish(stream: stream, trailers: [HTTP2Header("grpc-status", "0")])
        _ = try exchange(client, server)
        #expect(client.trailers[stream] == [HTTP2Header("grpc-status", "0")])
    }

    /// A request whose headers outgrow `maxHeaderListBytes` is reset, not kept in memory; the
    /// connection's next request is served.
    @Test func oversizedHeadersResetTheirStreamOnly() throws {
        let (client, server) = try connected()
        let padding = (0..<40).map { HTTP2Header("x-pad-\($0)", String(repeating: "a", count: 500)) }
        let big = client.request(grpcRequest("/legible.v1.Recognizer/Recognize") + padding, body: nil)
        let small = client.request(grpcRequest("/legible.v1.Recognizer/Recognize"), body: nil)
        let events = try exchange(client, server)
        #expect(!events.contains { if case .request(big, _) = $0 { true } else { false } })
        #expect(events.contains(.request(stream: small, headers: grpcRequest("/legible.v1.Recognizer/Recognize"))))
        #expect(client.closed[big] != nil && client.closed[big] != NGHTTP2_NO_ERROR.rawValue)
    }

    /// A header list is sized as HTTP/2 sizes it, 32 octets per field on top of its name and
    /// value (the size announced in SETTINGS_MAX_HEADER_LIST_SIZE): 600 fields of one short
    /// name and no value are over 16 KiB, 300 are under it.
    @Test func aHeaderListIsSizedWithThirtyTwoOctetsPerField() throws {
        let (client, server) = try connected()
        let fields = { (count: Int) in (0..<count).map { _ in HTTP2Header("x-a", "") } }
        let over = client.request(grpcRequest("/legible.v1.Recognizer/Recognize") + fields(600), body: nil)
        let under = client.request(grpcRequest("/legible.v1.Recognizer/Recognize") + fields(300), body: nil)
        let events = try exchange(client, server)
        #expect(!events.contains { if case .request(over, _) = $0 { true } else { false } })
        #expect(client.closed[over] != nil && client.closed[over] != NGHTTP2_NO_ERROR.rawValue)
        #expect(
            events.contains(
                .request(stream: under, headers: grpcRequest("/legible.v1.Recognizer/Recognize") + fields(300))))
    }

    /// HPACK lets one byte stand for a field already in its table: a HEADERS frame of 16,000
    /// references to an empty field (no name, no value) would have been 16,000 fields of size
    /// 0, never past the limit, each one's size summed over the ones before (a 60 KB block
    /// held a server's event loop for 2.7 s). It is refused at the list's size like any other,
    /// and the connection's next request is served.
    @Test func aBlockOfOneByteReferencesToAnEmptyFieldIsRefusedAtTheListSize() throws {
        let server = try HTTP2ServerConnection()
        // HPACK: a literal field added to the table (0x40) with an empty name and value, then
        // indexed references to it (0xbe: dynamic table entry 62).
        let block: [UInt8] = [0x40, 0x00, 0x00] + [UInt8](repeating: 0xbe, count: 16_000)
        let events = try server.receive(
            ProtocolSniffer.http2Preface + rawFrame(type: 0x4, flags: 0, stream: 0, [])
                + rawFrame(type: 0x1, flags: 0x4 | 0x1, stream: 1, block))
        #expect(!events.contains { if case .request = $0 { true } else { false } })
        // The stream is reset (RST_STREAM, frame type 3, for stream 1) and the connection goes on.
        #expect(frames(in: try server.outgoingBytes()).contains { $0.type == 0x3 && $0.stream == 1 })
        let next = try server.receive(
            rawFrame(
                type: 0x1, flags: 0x4 | 0x1, stream: 3, literalFields(grpcRequest("/legible.v1.Recognizer/Recognize"))))
        #expect(next.contains(.request(stream: 3, headers: grpcRequest("/legible.v1.Recognizer/Recognize"))))
    }

    /// A client's small DATA frames read in one go make one event per run of one stream's
    /// frames (one array, not one per frame), in the order the frames came.
    @Test func consecutiveDataFramesOfAStreamMakeOneEvent() throws {
        let server = try HTTP2ServerConnection()
        let request = literalFields(grpcRequest("/legible.v1.Recognizer/Stream"))
        var bytes = ProtocolSniffer.http2Preface + rawFrame(type: 0x4, flags: 0, stream: 0, [])
        bytes +=
            rawFrame(type: 0x1, flags: 0x4, stream: 1, request) + rawFrame(type: 0x1, flags: 0x4, stream: 3, request)
        for byte in UInt8(0)..<100 { bytes += rawFrame(type: 0x0, flags: 0, stream: 1, [byte]) }
        bytes += rawFrame(type: 0x0, flags: 0, stream: 3, [7, 7]) + rawFrame(type: 0x0, flags: 0x1, stream: 1, [100])
        let events = try server.receive(bytes)
        #expect(
            events.dropFirst(2) == [
                .data(stream: 1, bytes: Array(0..<100)), .data(stream: 3, bytes: [7, 7]),
                .data(stream: 1, bytes: [100]), .endStream(stream: 1),
            ])
    }

    /// Bytes that are not HTTP/2 are a protocol error; the GOAWAY nghttp2 queued is written.
    @Test func garbageIsAProtocolError() throws {
        let server = try HTTP2ServerConnection()
        #expect(throws: LegibleError.self) { try server.receive(Array("GET / HTTP/1.1\r\n\r\n".utf8)) }
        #expect(try !server.outgoingBytes().isEmpty)
    }
}

struct ProtocolSnifferTests {
    @Test func firstBytesTellTheProtocols() {
        #expect(ProtocolSniffer.verdict(ProtocolSniffer.http2Preface) == .http2)
        #expect(ProtocolSniffer.verdict(ProtocolSniffer.http2Preface + [0, 0]) == .http2)
        #expect(ProtocolSniffer.verdict(Array("PRI * HT".utf8)) == .undecided)
        #expect(ProtocolSniffer.verdict([UInt8]()) == .undecided)
        #expect(ProtocolSniffer.verdict([0x00, 0, 0, 0, 5]) == .framed)
        #expect(ProtocolSniffer.verdict([0x01]) == .framed)
        #expect(ProtocolSniffer.verdict(Array("GET / HTTP/1.1".utf8)) == .unknown)
        #expect(ProtocolSniffer.verdict(Array("PRX".utf8)) == .unknown)
    }
}
