internal import Glibc
internal import LegibleCore
internal import LegibleSessions
internal import LegibleSockets
internal import LegibleWire
internal import LegibleWireProtobuf

/// One client stream: reads messages without blocking, drives its session's state machine,
/// and writes what the machine says to send. Lives on the event loop's thread only.
///
/// Backpressure: when more than `writeHighWater` bytes wait to be written (a client that
/// sends but does not read), the connection stops reading until the queue drains below
/// `writeLowWater`; with one pending frame per session that bounds its memory.
final class Connection: EventHandler {
    let serial: UInt64
    let socket: Socket
    let peer: String
    private unowned let server: Server
    private var machine: SessionStateMachine
    private var deframer: MessageDeframer
    private var writeBuffer: [UInt8] = []
    private var writeOffset = 0
    private var closeAfterFlush = false
    private var readingPaused = false
    private var peerFinishedSending = false
    private(set) var isClosed = false

    static let readChunk = 64 * 1024
    static let writeHighWater = 4 << 20
    static let writeLowWater = 1 << 20

    init(serial: UInt64, socket: Socket, peer: String, server: Server, configuration: SessionConfiguration, maxMessageBytes: Int) {
        self.serial = serial
        self.socket = socket
        self.peer = peer
        self.server = server
        self.machine = SessionStateMachine(configuration: configuration)
        self.deframer = MessageDeframer(maxMessageBytes: maxMessageBytes)
    }

    var sessionID: String { machine.configuration.sessionID }
    var summary: SessionSummary { machine.summary }

    // MARK: Events from the loop

    func handleEvents(readable: Bool, writable: Bool, hangup: Bool) {
        if writable { flush() }
        if readable && !isClosed && !readingPaused && !peerFinishedSending { readAvailable() }
        // Both directions gone (EPOLLHUP/EPOLLERR): nobody is left to answer.
        if hangup && !isClosed { disconnect(reason: "hang-up") }
    }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: Connection.readChunk)
        // A bounded number of reads per wake-up keeps one busy client from starving the rest.
        for _ in 0..<8 {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(LegibleError) -> Int? in try socket.receive(into: buffer) }
            }
            switch result {
            case .failure:
                disconnect(reason: "read error")
                return
            case .success(nil):
                return
            case .success(0):
                endOfInput()
                return
            case .success(let count?):
                deframer.append(chunk[0..<count])
                drainMessages()
                if isClosed || readingPaused || closeAfterFlush { return }
            }
        }
    }

    private func drainMessages() {
        while !isClosed && !closeAfterFlush {
            let payload: [UInt8]
            do throws(LegibleError) {
                guard let next = try deframer.next() else { return }
                payload = next
            } catch {
                server.log(.info, "stream failed", ["session": sessionID, "code": error.code.name, "reason": error.message])
                perform(machine.streamFailed(error))
                return
            }
            do throws(LegibleError) {
                let message = try ProtobufCodec.decodeClientMessage(payload)
                if case .frame = message { server.frameArrived() }
                perform(machine.receive(message))
            } catch {
                perform(machine.streamFailed(error))
            }
        }
    }

    /// The client finished sending. After EndSession that is a half-close and the answers
    /// still go out; before it, the client has gone away.
    private func endOfInput() {
        peerFinishedSending = true
        if case .draining = machine.state {
            server.loop.modify(socket.descriptor, readable: false, writable: pendingWriteBytes > 0)
        } else if !closeAfterFlush {
            if !deframer.isAtMessageBoundary {
                server.log(.info, "client disconnected mid-message", ["session": sessionID])
            }
            disconnect(reason: "client closed the stream")
        }
    }

    // MARK: Actions

    /// Carries out what the state machine decided.
    func perform(_ actions: [SessionStateMachine.Action]) {
        for action in actions {
            guard !isClosed else { return }
            switch action {
            case .register(let settings):
                server.register(self, settings: settings)
            case .send(let message):
                enqueue(message)
            case .submit(let frame, let settings):
                server.submit(frame, settings: settings, from: self)
            case .close:
                closeAfterFlush = true
                flush()
            }
        }
    }

    /// A frame's answer from the scheduler or an engine.
    func answer(_ result: FrameResult) {
        perform(machine.frameAnswered(result))
    }

    /// The server is shutting down.
    func shutdown() {
        perform(machine.shutdown())
    }

    private func enqueue(_ message: ServerMessage) {
        MessageFraming.appendFrame(ProtobufCodec.encode(message), to: &writeBuffer)
        flush()
    }

    private var pendingWriteBytes: Int { writeBuffer.count - writeOffset }

    private func flush() {
        guard !isClosed else { return }
        while pendingWriteBytes > 0 {
            let result = writeBuffer.withUnsafeBytes { raw in
                Result { () throws(LegibleError) -> Int in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[writeOffset...]))
                }
            }
            guard case .success(let sent) = result else {
                disconnect(reason: "write error")
                return
            }
            if sent == 0 { break }
            writeOffset += sent
        }
        if pendingWriteBytes == 0 {
            writeBuffer.removeAll(keepingCapacity: writeBuffer.capacity <= Connection.readChunk * 4)
            writeOffset = 0
            if closeAfterFlush {
                finishClose()
                return
            }
        } else if writeOffset > Connection.writeLowWater {
            writeBuffer.removeFirst(writeOffset)
            writeOffset = 0
        }
        let shouldPause = pendingWriteBytes > Connection.writeHighWater
        if shouldPause != readingPaused && (shouldPause || pendingWriteBytes < Connection.writeLowWater) {
            readingPaused = shouldPause
        }
        server.loop.modify(
            socket.descriptor, readable: !readingPaused && !peerFinishedSending && !closeAfterFlush,
            writable: pendingWriteBytes > 0)
    }

    /// Everything is written: half-close so the client reads end of stream, then let go.
    private func finishClose() {
        socket.shutdownWrite()
        close()
    }

    /// The client is gone: nothing more can be sent; its pending frame is forgotten and a
    /// recognition in flight finishes for nobody.
    private func disconnect(reason: String) {
        guard !isClosed else { return }
        server.log(.debug, "disconnect", ["session": sessionID, "reason": reason])
        machine.disconnected()
        close()
    }

    private func close() {
        guard !isClosed else { return }
        isClosed = true
        server.loop.unregister(socket.descriptor)
        socket.close()
        server.connectionClosed(self)
    }
}
