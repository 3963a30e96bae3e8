import Foundation
import LegibleCore
import LegibleTesting
import LegibleWire
import Testing

@testable import LegibleServer

/// The server as a library, running on a thread of its own, with the calibration engine (a
/// fixed answer after a fixed delay) instead of Tesseract, on a fresh Unix socket;
/// `stopped` is signalled when `run()` returns.
final class RunningServer: @unchecked Sendable {
    let server: Server
    let address: ServerAddress
    let stopped = DispatchSemaphore(value: 0)
    /// The server's clock when `manualClock`; moved only by `advance`.
    let clock = SharedManualClock()
    private(set) var runError: LegibleError?

    init(delay: Duration, manualClock: Bool = false, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        address = .unix(path: NSTemporaryDirectory() + "legible-server-test-\(UInt32.random(in: 0...UInt32.max)).sock")
        var configuration = ServerConfiguration()
        configuration.listen = [address]
        configuration.workers = 1
        configuration.logLevel = .error
        configuration.recognizerFactory = { key, cancellation in
            CalibrationRecognizer(key: key, delay: delay, cancellation: cancellation)
        }
        if manualClock { configuration.clock = { [clock] in clock.now } }
        configure(&configuration)
        server = try Server(configuration: configuration)
        Thread.detachNewThread { [self] in
            do throws(LegibleError) { try server.run() } catch { runError = error }
            stopped.signal()
        }
    }

    /// Moves the manual clock, on the loop (so after everything sent before it).
    func advance(by duration: Duration) { server.onLoop { [clock] _ in clock.advance(by: duration) } }

    /// Runs the server's once-a-second check now, on the loop (after everything before it).
    func tick() { server.onLoop { $0.tick() } }

    /// Drains the server and waits for `run()` to return.
    func stop() {
        server.shutdownTrigger.drain(reason: "test")
        #expect(stopped.wait(timeout: .now() + 30) == .success, "run() did not return")
    }

    /// A 64×48 GRAY8 frame of one shade (frames of different shades are never "unchanged").
    static func grayFrame(_ id: UInt64, shade: UInt8) -> Frame {
        Frame(
            frameID: id, encoding: .known(.gray8), data: [UInt8](repeating: shade, count: 64 * 48), width: 64,
            height: 48, stride: 64)
    }
}
