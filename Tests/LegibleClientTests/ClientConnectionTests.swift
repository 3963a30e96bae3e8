import Foundation
import LegibleClient
import LegibleCore
import LegibleSockets
import LegibleWire
import LegibleWireProtobuf
import Testing

/// LegibleClient's blocking connection against a scripted peer on a Unix socket, all in one
/// thread: the peer's answers are written before the client reads them, so nothing waits.
@Suite("Client connection")
struct ClientConnectionTests {
    /// A listening socket at a fresh path, and the peer's end of the one connection to it.
    final class Peer {
        let address: ServerAddress
        let listener: Socket
        var stream: FramedStream?

        init() throws {
            address = .unix(
                path: NSTemporaryDirectory() + "legible-client-test-\(UInt32.random(in: 0...UInt32.max)).sock")
            listener = try Socket.listen(on: address)
        }

        /// Takes the connection a client has just made (it waits in the backlog).
        func accept() throws {
            let socket = try #require(try listener.accept())
            stream = FramedStream(socket: socket, maxMessageBytes: 1 << 20)
        }

        func write(_ message: ServerMessage) throws {
            stream!.enqueue(ProtobufCodec.encode(message))
            try stream!.flush()
        }

        /// Every whole message the client has sent so far.
        func read() throws -> [ClientMessage] {
            var messages: [ClientMessage] = []
            while case .received = try stream!.readOnce() {}
            while let payload = try stream!.nextMessage() {
                messages.append(try ProtobufCodec.decodeClientMessage(payload))
            }
            return messages
        }

        deinit {
            stream?.socket.close()
            listener.close()
            if case .unix(let path) = address { unlink(path) }
        }
    }

    @Test func startSessionSendsTheStartAndReturnsTheServersAnswer() throws {
        let peer = try Peer()
        let client = try ClientConnection(addresses: [peer.address])
        try peer.accept()
        try peer.write(
            .started(
                SessionStarted(
                    sessionID: "s9", serverVersion: "test",
                    limits: ServerLimits(
                        maxMessageBytes: 1024, pendingFramesPerSession: 1, workers: 1, replicasPerScript: 1),
                    availableScripts: [.latin])))
        let started = try client.startSession(StartSession(clientName: "client-tests"))
        #expect(started.sessionID == "s9")
        guard case .start(let start) = try peer.read().first else { return #expect(Bool(false), "no StartSession") }
        #expect(start.clientName == "client-tests")
    }

    @Test func anErrorAnswerIsThrownWithItsCode() throws {
        let peer = try Peer()
        let client = try ClientConnection(addresses: [peer.address])
        try peer.accept()
        try peer.write(.error(WireError(LegibleError(.unauthenticated, "bad token"), fatal: true)))
        do {
            _ = try client.startSession(StartSession())
            Issue.record("an error answer was taken for a start")
        } catch {
            #expect(error.code == .unauthenticated && error.message == "bad token")
        }
    }

    @Test func theEndOfTheStreamIsNilBetweenMessagesAndAnErrorInsideOne() throws {
        let peer = try Peer()
        let client = try ClientConnection(addresses: [peer.address])
        try peer.accept()
        try peer.write(.pong(nonce: 3))
        peer.stream!.socket.shutdownWrite()
        #expect(try client.receive() == .pong(nonce: 3))
        #expect(try client.receive() == nil, "a clean end")

        let cut = try Peer()
        let second = try ClientConnection(addresses: [cut.address])
        try cut.accept()
        let framed = MessageFraming.frame(ProtobufCodec.encode(.pong(nonce: 4)))
        try cut.stream!.socket.sendAll(Array(framed.dropLast(1)))
        cut.stream!.socket.shutdownWrite()
        #expect(throws: LegibleError.self) { try second.receive() }
    }

    @Test func itConnectsToTheFirstAddressThatAnswers() throws {
        let peer = try Peer()
        let nobody = ServerAddress.unix(
            path: NSTemporaryDirectory() + "legible-nobody-\(UInt32.random(in: 0...UInt32.max)).sock")
        let client = try ClientConnection(addresses: [nobody, peer.address])
        #expect(client.address == peer.address)
        do {
            _ = try ClientConnection(addresses: [nobody])
            Issue.record("connected to nobody")
        } catch {
            #expect(error.code == .unavailable && error.message.hasPrefix("cannot reach a server"))
        }
    }
}
