import Foundation
import Glibc
import LegibleClient
import LegibleCore
import LegibleHTTP2
import LegibleSockets
import LegibleTesting
import LegibleWire
import LegibleWireProtobuf
import Testing

@testable import LegibleServer

/// gRPC over HTTP/2 against the server as a library (`RunningServer`: the calibration engine,
/// a manual clock) on a real Unix socket, with libnghttp2's own client: what grpcio cannot be
/// made to do from the end-to-end tests — a server-side deadline on the manual clock, raw
/// `:authority` values, content types other than gRPC, GOAWAY on drain.
@Suite("gRPC transport")
struct GRPCTransportTests {
    /// One HTTP/2 connection to `running`, pumped by hand.
    final class Connection {
        let client: HTTP2TestClient
        let socket: Socket
        private(set) var endOfStream = false

        init(_ running: RunningServer, client: HTTP2TestClient = HTTP2TestClient()) throws {
            self.client = client
            socket = try Socket.connect(to: running.address)
        }

        /// Sends what the client has to send and reads answers until `done` holds (or 30 s).
        func pump(until done: () -> Bool) {
            let deadline = ContinuousClock.now + .seconds(30)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while ContinuousClock.now < deadline {
                send()
                if done() || endOfStream { return }
                var poller = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(socket.descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 {
                    endOfStream = true
                } else {
                    client.receive(Array(buffer[0..<count]))
                }
            }
        }

        /// Writes what the client has to send, without reading.
        func send() {
            let out = client.outgoing()
            if !out.isEmpty { try? socket.sendAll(out) }
        }

        /// The server messages of `stream`'s response body so far.
        func messages(of stream: Int32) throws -> [ServerMessage] {
            var deframer = MessageDeframer(maxMessageBytes: 1 << 20)
            deframer.append(client.bodies[stream] ?? [])
            var messages: [ServerMessage] = []
            while let payload = try deframer.next() { messages.append(try ProtobufCodec.decodeServerMessage(payload)) }
            return messages
        }

        func status(of stream: Int32) -> String? {
            (client.trailers[stream] ?? client.responseHeaders[stream])?.first { $0.name == "grpc-status" }?.value
        }
    }

    static func headers(
        _ path: String, authority: String = "unix:%2Ftmp%2Flegible.sock", contentType: String = "application/grpc",
        extra: [HTTP2Header] = []
    ) -> [HTTP2Header] {
        [
            HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "http"), HTTP2Header(":path", path),
            HTTP2Header(":authority", authority), HTTP2Header("content-type", contentType),
            HTTP2Header("te", "trailers"),
        ] + extra
    }

    static let streamPath = "/legible.v1.Recognizer/Stream"
    static let recognizePath = "/legible.v1.Recognizer/Recognize"

    static func message(_ message: ClientMessage) -> [UInt8] { MessageFraming.frame(ProtobufCodec.encode(message)) }

    static func kinds(_ messages: [ServerMessage]) -> [String] {
        messages.map {
            switch $0 {
            case .started: "started"
            case .result: "result"
            case .error: "error"
            case .pong: "pong"
            case .summary: "summary"
            }
        }
    }

    @Test func aCallPastItsGRPCTimeoutEndsWithDeadlineExceeded() throws {
        let running = try RunningServer(delay: .milliseconds(1), manualClock: true)
        defer { running.stop() }
        let connection = try Connection(running)
        let stream = connection.client.request(
            Self.headers(Self.streamPath, extra: [HTTP2Header("grpc-timeout", "2S")]),
            body: Self.message(.start(StartSession(clientName: "deadline"))), endStream: false)
        connection.pump { (try? connection.messages(of: stream).count) == 1 }
        #expect(Self.kinds(try connection.messages(of: stream)) == ["started"])
        running.advance(by: .seconds(1))
        running.tick()
        // Answered after the tick (an event to wait on, not a time): the call is still open.
        connection.client.send(Self.message(.ping(nonce: 5)), on: stream)
        connection.pump { (try? connection.messages(of: stream).count) == 2 }
        #expect(connection.status(of: stream) == nil, "ended before its 2 s")
        running.advance(by: .seconds(2))
        running.tick()
        // The trailers, then RST_STREAM NO_ERROR: this client had not ended its side.
        connection.pump { connection.client.closed[stream] != nil }
        #expect(connection.status(of: stream) == "4")
        #expect(connection.client.closed[stream] == 0)
        let messages = try connection.messages(of: stream)
        #expect(Self.kinds(messages) == ["started", "pong", "error"])
        if case .error(let error) = messages.last { #expect(error.fatal && error.code == 4) }
    }

    /// On the real clock: each call ends at its own `grpc-timeout` (a timer per connection),
    /// not at the server's next once-a-second tick.
    @Test func callsEndAtTheirOwnDeadlinesNotAtTheNextTick() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        defer { running.stop() }
        let connection = try Connection(running)
        let timeouts = [100, 300, 500]
        let calls = timeouts.map { milliseconds in
            connection.client.request(
                Self.headers(Self.streamPath, extra: [HTTP2Header("grpc-timeout", "\(milliseconds)m")]),
                body: Self.message(.start(StartSession(clientName: "deadline-\(milliseconds)"))), endStream: false)
        }
        let began = ContinuousClock.now
        var ended: [Int32: Duration] = [:]
        connection.pump {
            for call in calls where ended[call] == nil && connection.status(of: call) != nil {
                ended[call] = ContinuousClock.now - began
            }
            return ended.count == calls.count
        }
        for (call, milliseconds) in zip(calls, timeouts) {
            #expect(connection.status(of: call) == "4")
            let at = ended[call] ?? .seconds(99)
            #expect(
                at >= .milliseconds(milliseconds - 20) && at < .milliseconds(milliseconds + 400),
                "the \(milliseconds) ms call ended after \(at)")
        }
    }

    @Test func aUnaryCallIsAnsweredAndRequestsThatAreNotGRPCAreRefusedByStatus() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        defer { running.stop() }
        let connection = try Connection(running)
        let request = ProtobufCodec.encodeRecognizeRequest(
            options: RecognitionOptions(), frame: RunningServer.grayFrame(7, shade: 90))
        // grpcurl sends a Unix socket's path raw as :authority; nghttp2's own checks refuse it.
        let unary = connection.client.request(
            Self.headers(Self.recognizePath, authority: "/tmp/legible.sock"), body: MessageFraming.frame(request))
        let plain = connection.client.request(
            Self.headers(Self.recognizePath, contentType: "text/plain"), body: MessageFraming.frame(request))
        let json = connection.client.request(
            Self.headers(Self.recognizePath, contentType: "application/grpc+json"), body: MessageFraming.frame(request))
        let get = connection.client.request(
            [HTTP2Header(":method", "GET")] + Self.headers(Self.recognizePath).dropFirst(), body: nil)
        connection.pump { [unary, plain, json, get].allSatisfy { connection.client.closed[$0] != nil } }

        #expect(connection.status(of: unary) == "0")
        var deframer = MessageDeframer(maxMessageBytes: 1 << 20)
        deframer.append(connection.client.bodies[unary] ?? [])
        let answer = try deframer.next()
        let second = try deframer.next()
        #expect(answer != nil && second == nil, "one message")
        #expect(try answer.map(ProtobufCodec.decodeFrameResult)?.frameID == 7)

        #expect(connection.client.responseHeaders[plain]?.first == HTTP2Header(":status", "415"))
        #expect(connection.status(of: plain) == nil)
        #expect(connection.client.responseHeaders[get]?.first == HTTP2Header(":status", "405"))
        #expect(connection.status(of: json) == "12")
    }

    @Test func drainSaysGoAwayAndEndsOpenCallsWithTheirSummary() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        let connection = try Connection(running)
        let stream = connection.client.request(
            Self.headers(Self.streamPath), body: Self.message(.start(StartSession(clientName: "drain"))),
            endStream: false)
        connection.pump { (try? connection.messages(of: stream).count) == 1 }
        running.server.shutdownTrigger.drain(reason: "test")
        connection.pump { connection.status(of: stream) != nil }
        #expect(connection.client.goAwayLastStream == stream)
        #expect(connection.status(of: stream) == "0")
        #expect(Self.kinds(try connection.messages(of: stream)) == ["started", "summary"])
        // The server leaves the closing to its client (gRPC clients close after GOAWAY once
        // their calls have ended): it reads on until then, and only then stops.
        #expect(
            running.stopped.wait(timeout: .now() + .milliseconds(200)) == .timedOut, "stopped before the client closed")
        connection.socket.close()
        #expect(running.stopped.wait(timeout: .now() + 30) == .success, "run() did not return")
    }

    /// A client whose flow-control window holds back the last answers: the drain waits for it
    /// to read on rather than closing with the summary and the status unsent (grpcio then
    /// reported UNAVAILABLE "Stream removed" for a call the server had ended cleanly).
    @Test func drainWaitsForTheLastAnswersAClientsWindowHoldsBack() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        let connection = try Connection(running, client: HTTP2TestClient(initialWindowSize: 2))
        let stream = connection.client.request(
            Self.headers(Self.streamPath), body: Self.message(.start(StartSession(clientName: "slow reader"))),
            endStream: false)
        connection.pump {
            connection.client.consumeReceived()
            connection.send()  // the window update now, not after the next poll's timeout
            return (try? connection.messages(of: stream).count) == 1
        }
        let startedBytes = connection.client.bodies[stream]?.count ?? 0
        running.server.shutdownTrigger.drain(reason: "test")
        // The GOAWAY and the summary's first bytes (as many as the window takes); the rest waits.
        connection.pump {
            connection.client.goAwayLastStream == stream && connection.client.bodies[stream]!.count > startedBytes
        }
        connection.client.ping()
        connection.pump { connection.client.pingAcknowledgements == 1 }
        #expect(!connection.endOfStream, "closed with the summary held back")
        #expect(connection.status(of: stream) == nil)
        connection.pump {
            connection.client.consumeReceived()
            connection.send()  // the window update now, not after the next poll's timeout
            return connection.status(of: stream) != nil
        }
        #expect(connection.status(of: stream) == "0")
        #expect(Self.kinds(try connection.messages(of: stream)) == ["started", "summary"])
        connection.socket.close()
        #expect(running.stopped.wait(timeout: .now() + 30) == .success, "run() did not return")
    }

    /// ... but not forever: a client that never opens its window is closed
    /// `HTTP2Transport.unreadAnswersSeconds` after its last call ended, and the server stops.
    @Test func drainClosesAClientThatNeverReadsItsLastAnswers() throws {
        let running = try RunningServer(delay: .milliseconds(1), manualClock: true)
        let connection = try Connection(running, client: HTTP2TestClient(initialWindowSize: 2))
        let stream = connection.client.request(
            Self.headers(Self.streamPath), body: Self.message(.start(StartSession(clientName: "no reader"))),
            endStream: false)
        connection.pump { connection.client.bodies[stream]?.count == 2 }
        running.server.shutdownTrigger.drain(reason: "test")
        connection.client.ping()
        connection.pump { connection.client.goAwayLastStream == stream && connection.client.pingAcknowledgements == 1 }
        running.advance(by: .seconds(HTTP2Transport.unreadAnswersSeconds - 1))
        running.tick()
        connection.client.ping()
        connection.pump { connection.client.pingAcknowledgements == 2 }
        #expect(!connection.endOfStream, "closed before its time")
        running.advance(by: .seconds(1))
        running.tick()
        connection.pump { false }
        #expect(connection.endOfStream)
        #expect(connection.status(of: stream) == nil)
        #expect(running.stopped.wait(timeout: .now() + 30) == .success, "run() did not return")
    }

    @Test func anHTTP2ConnectionThatOpensNoCallIsClosedAtTheFirstMessageDeadline() throws {
        let running = try RunningServer(delay: .milliseconds(1), manualClock: true)
        defer { running.stop() }
        let connection = try Connection(running)
        // The server's SETTINGS arrived (SETTINGS_INITIAL_WINDOW_SIZE; the default is 65,535).
        connection.pump { connection.client.remoteSetting(4) == 4 << 20 }
        running.advance(by: .seconds(11))
        running.tick()
        connection.pump { false }
        #expect(connection.endOfStream)
        #expect(connection.client.goAwayLastStream == 0)
    }

    @Test func keepalivePingsAreAnsweredAndARapidResetFloodEndsTheConnection() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        defer { running.stop() }
        let connection = try Connection(running)
        connection.client.ping()
        connection.pump { connection.client.pingAcknowledgements == 1 }
        #expect(connection.client.pingAcknowledgements == 1)
        // Open a call and reset it at once: 150 times is within the burst of 200 (the
        // connection serves on); 150 more, and the server says GOAWAY and closes (each call
        // would cost it a session).
        func openAndReset(_ count: Int) {
            for _ in 0..<count {
                let stream = connection.client.request(Self.headers(Self.streamPath), body: nil)
                connection.send()  // the HEADERS leave before the reset (else nghttp2 sends neither)
                connection.client.reset(stream)
                connection.send()
            }
        }
        openAndReset(150)
        connection.client.ping()
        connection.pump { connection.client.pingAcknowledgements == 2 }
        #expect(connection.client.pingAcknowledgements == 2 && !connection.endOfStream)
        #expect(connection.client.goAwayLastStream == nil)
        openAndReset(150)
        connection.pump { connection.endOfStream }
        #expect(connection.client.goAwayLastStream != nil)
        #expect(connection.endOfStream)
        // The server serves the next connection.
        let next = try Connection(running)
        next.client.ping()
        next.pump { next.client.pingAcknowledgements == 1 }
        #expect(next.client.pingAcknowledgements == 1)
    }

    @Test func theHundredAndFirstConcurrentCallIsRefusedAndTheOthersGoOn() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        defer { running.stop() }
        // A client that opens 101 calls before it has read the server's SETTINGS (100).
        let client = HTTP2TestClient(assumedPeerMaxStreams: 1000)
        let connection = try Connection(running, client: client)
        let calls = (0..<101).map { _ in
            client.request(Self.headers(Self.streamPath), body: [], endStream: false)
        }
        connection.pump { client.closed[calls[100]] != nil }
        #expect(client.closed[calls[100]] == 7, "REFUSED_STREAM")
        #expect(calls.prefix(100).allSatisfy { client.closed[$0] == nil && client.trailers[$0] == nil })
        // The first call still works: StartSession is answered.
        client.send(Self.message(.start(StartSession(clientName: "first"))), on: calls[0])
        connection.pump { (try? connection.messages(of: calls[0]).count) == 1 }
        #expect(Self.kinds(try connection.messages(of: calls[0])) == ["started"])
    }

    @Test func garbageAfterThePrefaceOrNoSettingsAtAllEndTheConnectionAlone() throws {
        let running = try RunningServer(delay: .milliseconds(1), manualClock: true)
        defer { running.stop() }
        // Garbage where the client's SETTINGS should be: GOAWAY (PROTOCOL_ERROR), then closed.
        let garbage = try Socket.connect(to: running.address)
        try garbage.sendAll(ProtocolSniffer.http2Preface + Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let frames = Self.framesUntilClosed(garbage)
        #expect(frames.map(\.type).contains(7), "a GOAWAY: \(frames)")
        #expect(frames.first { $0.type == 7 }.map { Self.goAwayError($0.payload) } == 1, "PROTOCOL_ERROR")
        // The preface and then nothing: closed at the first-message deadline like any silent
        // connection; a good client beside it is served throughout.
        let silent = try Socket.connect(to: running.address)
        try silent.sendAll(ProtocolSniffer.http2Preface)
        let good = try Connection(running)
        good.client.ping()
        good.pump { good.client.pingAcknowledgements == 1 }
        running.advance(by: .seconds(11))
        running.tick()
        #expect(Self.framesUntilClosed(silent).map(\.type).contains(7))
        #expect(good.client.pingAcknowledgements == 1)
    }

    /// The HTTP/2 frames `socket` receives until the server closes it (or 30 s): type and payload.
    static func framesUntilClosed(_ socket: Socket) -> [(type: UInt8, payload: [UInt8])] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var poller = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 30_000) > 0 {
            let count = buffer.withUnsafeMutableBytes { recv(socket.descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        // Each frame: a 3-byte length, type, flags, a 4-byte stream id, the payload (RFC 9113 §4.1).
        var frames: [(type: UInt8, payload: [UInt8])] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard offset + 9 + length <= bytes.count else { break }
            frames.append((bytes[offset + 3], Array(bytes[(offset + 9)..<(offset + 9 + length)])))
            offset += 9 + length
        }
        return frames
    }

    /// A GOAWAY payload's error code (after the 4-byte last stream id).
    static func goAwayError(_ payload: [UInt8]) -> UInt32? {
        guard payload.count >= 8 else { return nil }
        return payload[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// `legible --transport grpc` and `legible-load --transport grpc`: the Swift clients run
    /// the same session as a Recognizer/Stream call (GRPCClientStream), to its summary and the
    /// call's end.
    @Test func theSwiftClientsRunTheirSessionAsAGRPCCall() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        defer { running.stop() }
        let client = try ClientConnection(addresses: [running.address], transport: .grpc)
        _ = try client.startSession(StartSession(clientName: "grpc-client"))
        try client.send(.frame(RunningServer.grayFrame(1, shade: 60)))
        guard case .result(let result)? = try client.receive() else { return #expect(Bool(false), "no result") }
        #expect(result.frameID == 1 && result.status == .recognized)
        try client.send(.ping(nonce: 9))
        #expect(try client.receive() == .pong(nonce: 9))
        try client.send(.end)
        guard case .summary(let summary)? = try client.receive() else { return #expect(Bool(false), "no summary") }
        #expect(summary.framesReceived == 1 && summary.framesRecognized == 1)
        #expect(try client.receive() == nil, "the call ends after the summary")

        let live = try LiveConnection(
            addresses: [running.address], start: StartSession(clientName: "grpc-live"), transport: .grpc)
        #expect(try live.offerFrame(RunningServer.grayFrame(2, shade: 90)))
        var answered: [ServerMessage] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while answered.isEmpty && ContinuousClock.now < deadline {
            var poller = pollfd(fd: live.descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 100)
            answered += try live.receive() ?? []
        }
        guard case .result(let second)? = answered.first else { return #expect(Bool(false), "\(answered)") }
        #expect(second.frameID == 2)
    }

    @Test func aConnectionSpeakingNeitherProtocolIsClosed() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        defer { running.stop() }
        let socket = try Socket.connect(to: running.address)
        try socket.sendAll(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        var byte: UInt8 = 0
        // Closed without an answer: end of stream, or a reset over the bytes it did not read.
        let count = recv(socket.descriptor, &byte, 1, 0)
        #expect(count == 0 || (count == -1 && errno == ECONNRESET), "\(count)")
    }
}
