internal import Foundation
internal import Glibc
internal import LegibleCore

/// The worker side of an engine in its own process (`legibled --engine-worker`, started by
/// `WorkerLauncher`): loads the engine it is told to, then reads frames with its
/// `FramePipeline` one at a time and answers each, over the socketpair on descriptor 3.
///
/// A reader thread takes the messages off the socket, so that a cancel reaches the
/// recognition while it runs; when legibled goes away (the socket closes) the worker exits at
/// once, whatever it is doing. The frames it reads arrive in its `SharedFrameMemory`
/// (descriptor 4), copied out before it answers.
public enum EngineWorker {
    public static func run(pipelines: PipelineFactory) -> Never {
        // Nothing else of the parent's (listeners, clients) may be held open here.
        closefrom(WorkerCommand.sharedMemoryDescriptor + 1)
        let channel = WorkerChannel(descriptor: WorkerCommand.channelDescriptor)
        // Absent (not a descriptor) when legibled sends frames down the channel.
        let shared = try? SharedFrameMemory(mapping: WorkerCommand.sharedMemoryDescriptor)
        let cancellation = RecognitionCancellation()
        let inbox = Inbox()
        let reader = Thread {
            while true {
                guard let message = try? channel.receive(timeout: nil),
                    let request = try? WorkerRequest.decode(header: message.header, body: message.body, shared: shared)
                else { _exit(0) }
                if case .cancel(let serial) = request {
                    cancellation.cancel(serial)
                } else {
                    inbox.put(request)
                }
            }
        }
        reader.name = "worker-reader"
        reader.start()

        guard case .load(let key) = inbox.take() else { _exit(2) }
        let pipeline: FramePipeline
        do {
            pipeline = try pipelines.makePipeline(for: key, cancellation: cancellation)
        } catch {
            let failure = (error as? LegibleError) ?? LegibleError(.internal, "engine did not start", cause: error)
            reply(.failedToLoad(failure), on: channel)
            _exit(0)
        }
        reply(.loaded, on: channel)
        let faults = TestFault.fromEnvironment()
        while true {
            switch inbox.take() {
            case .process(let frame, let settings, let context):
                faults?.strike(frameID: frame.frameID)
                let outcome = pipeline.process(frame, settings: settings, context: context)
                reply(.outcome(serial: context.serial, outcome), on: channel)
            case .continueReading(let handOff, let settings, let context):
                let outcome = pipeline.continueReading(handOff, settings: settings, context: context)
                reply(.outcome(serial: context.serial, outcome), on: channel)
            case .load, .cancel:
                _exit(2)
            }
        }
    }

    private static func reply(_ reply: WorkerReply, on channel: WorkerChannel) {
        guard let bytes = try? WorkerCodec.encode(reply) else { _exit(3) }
        do { try channel.send(bytes) } catch { _exit(0) }
    }
}

/// The requests waiting for the worker's main thread (one at a time: legibled sends the next
/// frame only after the answer to the last).
private final class Inbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var requests: [WorkerRequest] = []

    func put(_ request: WorkerRequest) {
        condition.lock()
        requests.append(request)
        condition.signal()
        condition.unlock()
    }

    func take() -> WorkerRequest {
        condition.lock()
        defer { condition.unlock() }
        while requests.isEmpty { condition.wait() }
        return requests.removeFirst()
    }
}

/// Faults a test can make an engine worker commit, to check that legibled survives them:
/// `LEGIBLED_TEST_FAULT=abort:FRAME_ID` aborts the worker (as a failed Tesseract assert does)
/// on the frame of that id, `hang:FRAME_ID` makes it ignore its cancel and deadline for ever
/// (as Tesseract's page layout does). Compiled into debug builds only (the test build).
struct TestFault {
    enum Kind: String { case abort, hang }
    var kind: Kind
    var frameID: UInt64

    static func fromEnvironment() -> TestFault? {
        #if DEBUG
            guard let value = ProcessInfo.processInfo.environment["LEGIBLED_TEST_FAULT"] else { return nil }
            let parts = value.split(separator: ":")
            guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])), let id = UInt64(parts[1]) else {
                return nil
            }
            return TestFault(kind: kind, frameID: id)
        #else
            return nil
        #endif
    }

    func strike(frameID: UInt64) {
        guard frameID == self.frameID else { return }
        switch kind {
        case .abort: abort()
        case .hang: while true { sleep(60) }
        }
    }
}
