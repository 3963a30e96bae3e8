import Foundation
import LegibleClient
import LegibleCore
import LegibleServer
import LegibleTesting
import LegibleWire
import Testing

/// The server as a library (`RunningServer`), fed by a real client over a Unix socket and
/// stopped by a call rather than a signal.
@Suite("Server lifecycle")
struct ServerLifecycleTests {
    @Test func drainAnswersEveryFrameReceivedThenRunReturns() throws {
        let running = try RunningServer(delay: .milliseconds(50))
        let client = try ClientConnection(addresses: [running.address])
        _ = try client.startSession(StartSession(clientName: "server-tests"))
        // Frames of different shades (no "unchanged" skips), sent faster than the engine
        // reads them: the stale ones are dropped, each answered once.
        let ids: [UInt64] = [1, 2, 3, 4, 5]
        for id in ids { try client.send(.frame(RunningServer.grayFrame(id, shade: UInt8(40 * id)))) }
        // Wait on an event (the first answer), not on time, before asking the server to drain.
        var answered: [UInt64: FrameStatus] = [:]
        var summary: SessionSummary?
        func take(_ message: ServerMessage) {
            switch message {
            case .result(let result):
                #expect(answered[result.frameID] == nil, "frame \(result.frameID) answered twice")
                answered[result.frameID] = result.status
            case .summary(let value): summary = value
            default: break
            }
        }
        if let first = try client.receive() { take(first) }
        running.server.shutdownTrigger.drain(reason: "test")
        while let message = try client.receive() { take(message) }
        #expect(running.stopped.wait(timeout: .now() + 30) == .success, "run() did not return after the drain")
        #expect(running.runError == nil)
        #expect(answered.keys.sorted() == ids)
        #expect(answered.values.contains(.recognized))
        #expect(summary?.framesReceived == UInt64(ids.count))
        // The socket file is gone: a client now is refused at once.
        if case .unix(let path) = running.address { #expect(access(path, F_OK) != 0) }
        #expect(throws: LegibleError.self) { try ClientConnection(addresses: [running.address]) }
    }

    @Test func aSecondDrainDoesNothing() throws {
        let running = try RunningServer(delay: .milliseconds(1))
        running.server.shutdownTrigger.drain(reason: "first")
        running.server.shutdownTrigger.drain(reason: "second")
        #expect(running.stopped.wait(timeout: .now() + 30) == .success)
        #expect(running.runError == nil)
    }
}
