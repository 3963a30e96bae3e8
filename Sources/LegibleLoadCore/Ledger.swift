/// What became of one scheduled frame.
public enum FrameOutcome: Sendable, Hashable {
    /// Not yet due, or due and not yet handled.
    case scheduled
    /// In the session's outgoing buffer, not yet wholly written to the socket.
    case queued
    /// Wholly written; no answer yet. Still so at the end of the run: *unanswered*.
    case sent
    /// Answered by the server.
    case answered(Answer)
    /// Never sent by the harness (reported, not hidden).
    case clientSkipped(ClientSkipReason)

    /// The server's answer, as the report counts it.
    public enum Answer: Sendable, Hashable {
        case recognized
        case dropped
        case skipped
        /// With the gRPC status code of the frame's error (0 when the server gave none).
        case failed(code: Int32)
    }
}

/// Why the harness did not send a frame that was due.
public enum ClientSkipReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The session's outgoing buffer already held its bound of frames: the socket would not
    /// take them (the server reads slower than the schedule sends).
    case socketFull = "socket_full"
    /// The session had ended (the server closed it, or it never started).
    case sessionClosed = "session_closed"
    /// Still in the outgoing buffer, not wholly written, when the run ended.
    case notWritten = "not_written"
}

/// One frame's times, in nanoseconds from t0.
public struct FrameRecord: Sendable, Hashable {
    /// When the schedule said to send it; latency starts here.
    public var scheduled: Nanoseconds
    /// When its last byte was written to the socket.
    public var sent: Nanoseconds?
    /// When its `FrameResult` was read.
    public var answered: Nanoseconds?
    public var outcome: FrameOutcome = .scheduled
    /// The server's own `Timing.total_us` (last byte read to result queued), when it gave one.
    public var serverMicros: UInt32?
    /// The server's own `Timing.recognize_us` (its engine's time on the frame), when it gave one.
    public var recognizeMicros: UInt32?

    public init(scheduled: Nanoseconds) { self.scheduled = scheduled }

    /// From the scheduled send time to the result's arrival, whatever delayed it (the harness
    /// included): the open-loop latency that does not hide coordinated omission.
    public var latency: Nanoseconds? { answered.map { $0 - scheduled } }
}

/// Every frame of one session, indexed by frame index (`frame_id - 1`), and what the session
/// learned from the server. Pure bookkeeping: the socket code calls it, the report reads it.
public struct SessionLedger: Sendable {
    public let session: Int
    public let script: String
    public private(set) var frames: [FrameRecord] = []
    /// Results whose frame id this session never sent, or answered twice.
    public private(set) var protocolViolations: [String] = []
    /// Why the session ended early or failed, when it did.
    public var error: String?
    /// The server's `SessionSummary`, when it came.
    public var serverSummary: ServerSummary?
    /// The first error message the server gave for a failed frame, per gRPC status code.
    public var failureMessages: [Int32: String] = [:]

    public init(session: Int, script: String) {
        self.session = session
        self.script = script
    }

    /// Records that frame `index` (the next one) is due at `time`.
    public mutating func schedule(_ index: Int, at time: Nanoseconds) {
        precondition(index == frames.count, "frames are scheduled in order")
        frames.append(FrameRecord(scheduled: time))
    }

    public mutating func queued(_ index: Int) { frames[index].outcome = .queued }

    public mutating func sent(_ index: Int, at time: Nanoseconds) {
        frames[index].sent = time
        if case .queued = frames[index].outcome { frames[index].outcome = .sent }
    }

    public mutating func clientSkipped(_ index: Int, _ reason: ClientSkipReason) {
        frames[index].outcome = .clientSkipped(reason)
    }

    /// Records the server's answer for wire frame id `frameID`.
    public mutating func answer(
        frameID: UInt64, _ answer: FrameOutcome.Answer, at time: Nanoseconds, serverMicros: UInt32?,
        recognizeMicros: UInt32? = nil
    ) {
        let index = Int(clamping: frameID) - 1
        guard index >= 0 && index < frames.count else {
            protocolViolations.append("a result for frame \(frameID), which was never sent")
            return
        }
        switch frames[index].outcome {
        case .queued, .sent:
            frames[index].outcome = .answered(answer)
            frames[index].answered = time
            frames[index].serverMicros = serverMicros
            frames[index].recognizeMicros = recognizeMicros
        case .answered:
            protocolViolations.append("a second result for frame \(frameID)")
        case .scheduled, .clientSkipped:
            protocolViolations.append("a result for frame \(frameID), which was not sent")
        }
    }

    /// Frames sent and not answered yet.
    public var outstanding: Int {
        frames.reduce(0) { count, frame in if case .sent = frame.outcome { count + 1 } else { count } }
    }

    /// The run is over: what is still in the outgoing buffer was never sent.
    public mutating func close() {
        for index in frames.indices {
            if case .queued = frames[index].outcome { frames[index].outcome = .clientSkipped(.notWritten) }
        }
    }
}

/// `legible.v1.SessionSummary` as the report keeps it.
public struct ServerSummary: Sendable, Hashable, Codable {
    public var received: UInt64
    public var recognized: UInt64
    public var dropped: UInt64
    public var skipped: UInt64
    public var failed: UInt64

    public init(received: UInt64, recognized: UInt64, dropped: UInt64, skipped: UInt64, failed: UInt64) {
        self.received = received
        self.recognized = recognized
        self.dropped = dropped
        self.skipped = skipped
        self.failed = failed
    }
}
