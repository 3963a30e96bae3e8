/// Everything a load run measured, in plain numbers: what `--json` writes and what the text
/// and HTML reports are drawn from. Times are milliseconds unless a name says otherwise.
public struct LoadReport: Sendable, Codable {
    public struct Configuration: Sendable, Codable {
        public var sessions: Int
        public var fps: Double
        public var durationSeconds: Double
        public var rampUpSeconds: Double
        public var maxFrames: Int?
        public var drainTimeoutSeconds: Double
        /// Session k's script is `scripts[k % scripts.count]`.
        public var scripts: [String]
        public var server: String
        /// Where the frames came from, e.g. "generated 640x480 (8 frames, seed 1)".
        public var frames: String
        /// The session options sent in StartSession, as given on the command line.
        public var options: [String]

        public init(
            sessions: Int, fps: Double, durationSeconds: Double, rampUpSeconds: Double, maxFrames: Int?,
            drainTimeoutSeconds: Double, scripts: [String], server: String, frames: String, options: [String]
        ) {
            self.sessions = sessions
            self.fps = fps
            self.durationSeconds = durationSeconds
            self.rampUpSeconds = rampUpSeconds
            self.maxFrames = maxFrames
            self.drainTimeoutSeconds = drainTimeoutSeconds
            self.scripts = scripts
            self.server = server
            self.frames = frames
            self.options = options
        }
    }

    /// Where every scheduled frame went. `scheduled = sent + clientSkipped` and
    /// `sent = recognized + dropped + skipped + failed + unanswered`; `accounted` says both hold.
    public struct Counts: Sendable, Codable, Hashable {
        public var scheduled = 0
        public var sent = 0
        public var recognized = 0
        public var dropped = 0
        public var skipped = 0
        public var failed = 0
        /// gRPC status code (as text, for JSON) → frames.
        public var failedByCode: [String: Int] = [:]
        public var clientSkipped = 0
        public var clientSkippedByReason: [String: Int] = [:]
        /// Sent and never answered before the run ended (must be 0 after the drain).
        public var unanswered = 0

        public var answered: Int { recognized + dropped + skipped + failed }
        public var accounted: Bool { scheduled == sent + clientSkipped && sent == answered + unanswered }

        mutating func add(_ frame: FrameRecord) {
            scheduled += 1
            switch frame.outcome {
            case .scheduled, .queued:
                // The runner closes every ledger first; count defensively as never sent.
                clientSkipped += 1
                clientSkippedByReason[ClientSkipReason.notWritten.rawValue, default: 0] += 1
            case .clientSkipped(let reason):
                clientSkipped += 1
                clientSkippedByReason[reason.rawValue, default: 0] += 1
            case .sent:
                sent += 1
                unanswered += 1
            case .answered(let answer):
                sent += 1
                switch answer {
                case .recognized: recognized += 1
                case .dropped: dropped += 1
                case .skipped: skipped += 1
                case .failed(let code):
                    failed += 1
                    failedByCode[String(code), default: 0] += 1
                }
            }
        }

        enum CodingKeys: String, CodingKey {
            case scheduled, sent, recognized, dropped, skipped, failed, failedByCode, clientSkipped
            case clientSkippedByReason, unanswered, answered, accounted
        }

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            scheduled = try c.decode(Int.self, forKey: .scheduled)
            sent = try c.decode(Int.self, forKey: .sent)
            recognized = try c.decode(Int.self, forKey: .recognized)
            dropped = try c.decode(Int.self, forKey: .dropped)
            skipped = try c.decode(Int.self, forKey: .skipped)
            failed = try c.decode(Int.self, forKey: .failed)
            failedByCode = try c.decode([String: Int].self, forKey: .failedByCode)
            clientSkipped = try c.decode(Int.self, forKey: .clientSkipped)
            clientSkippedByReason = try c.decode([String: Int].self, forKey: .clientSkippedByReason)
            unanswered = try c.decode(Int.self, forKey: .unanswered)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(scheduled, forKey: .scheduled)
            try c.encode(sent, forKey: .sent)
            try c.encode(recognized, forKey: .recognized)
            try c.encode(dropped, forKey: .dropped)
            try c.encode(skipped, forKey: .skipped)
            try c.encode(failed, forKey: .failed)
            try c.encode(failedByCode, forKey: .failedByCode)
            try c.encode(clientSkipped, forKey: .clientSkipped)
            try c.encode(clientSkippedByReason, forKey: .clientSkippedByReason)
            try c.encode(unanswered, forKey: .unanswered)
            try c.encode(answered, forKey: .answered)
            try c.encode(accounted, forKey: .accounted)
        }
    }

    /// Frames per second, of two kinds.
    ///
    /// Offered load: `requested` is sessions × fps; `scheduled` and `sent` divide by the
    /// duration each session streams, so `sent == requested` when every frame went out (with
    /// `--max-frames`, fewer are scheduled). A harness that sends late still sends: its lag
    /// shows in `sendLag` and in latency, not here.
    ///
    /// Throughput: `answered` and `recognized` divide by the run's busy span, from t0 to the
    /// last answer (at least the scheduled window), so a server that works off its backlog
    /// after the window is credited with the time it took.
    public struct Rates: Sendable, Codable, Hashable {
        public var requested: Double
        public var scheduled: Double
        public var sent: Double
        public var answered: Double
        public var recognized: Double
    }

    /// Jain's index over recognized frames per session, and the spread behind it.
    public struct Fairness: Sendable, Codable, Hashable {
        public var jainIndex: Double?
        public var recognizedMin: Int
        public var recognizedMax: Int
        public var recognizedMean: Double
    }

    /// The server process from /proc, when it is local and its PID is known.
    public struct ServerProcess: Sendable, Codable, Hashable {
        public var pid: Int32
        /// user + sys CPU time used during the run.
        public var cpuSeconds: Double
        /// cpuSeconds over the run's wall time, in % of one core.
        public var cpuPercent: Double
        public var rssStartMegabytes: Double
        public var rssEndMegabytes: Double
        /// The largest resident size sampled (once a second).
        public var rssPeakMegabytes: Double
    }

    /// One second of the run, by the frames' *scheduled* second (so each row holds the
    /// frames sent in that second, wherever their answers fell); server CPU and RSS by the
    /// sample's own second.
    public struct Second: Sendable, Codable, Hashable {
        public var second: Int
        public var scheduled = 0
        public var sent = 0
        public var recognized = 0
        public var dropped = 0
        public var skipped = 0
        public var failed = 0
        public var clientSkipped = 0
        public var unanswered = 0
        public var latencyP50: Double?
        public var latencyP90: Double?
        public var latencyP99: Double?
        public var latencyMax: Double?
        public var serverCPUPercent: Double?
        public var serverRSSMegabytes: Double?
    }

    public struct Session: Sendable, Codable, Hashable {
        public var index: Int
        public var script: String
        public var counts: Counts
        public var latencyP50: Double?
        public var latencyP99: Double?
        public var error: String?
        public var serverSummary: ServerSummary?
        /// The server's summary agrees with what this session saw (nil when none came).
        public var summaryMatches: Bool?
    }

    public var configuration: Configuration
    /// The scheduled window, `OpenLoopSchedule.window`: from t0 to the end of the last
    /// session's duration.
    public var windowSeconds: Double
    /// From t0 until the run ended (every session closed, or the hard deadline).
    public var totalSeconds: Double
    /// Sessions were still open at the hard deadline (their sent frames count unanswered).
    public var hitDeadline: Bool
    /// SIGINT or SIGTERM cut the schedule short: frames not yet due then are not counted, and
    /// the window and the offered rates end where it was cut.
    public var interrupted: Bool
    public var counts: Counts
    public var rates: Rates
    /// Recognized frames: scheduled send → result read.
    public var latency: Distribution
    /// The same for each status (dropped frames are answered as soon as they are replaced).
    public var latencyByStatus: [String: Distribution]
    public var histogram: Histogram
    public var resultAge: Distribution
    /// How late the harness wrote frames (last byte written − scheduled); large values mean
    /// the harness, not the server, fell behind (and latency includes it).
    public var sendLag: Distribution
    /// The server's own `Timing.total_us` of recognized frames.
    public var serverTime: Distribution
    /// The server's own `Timing.recognize_us` of recognized frames: one recognition on this
    /// machine now.
    public var serverRecognize: Distribution
    /// Each recognized frame's latency over its own recognition time: how old a result is
    /// when it arrives, in recognitions — freshness apart from how fast the machine is during
    /// the run (the measure of BENCHMARKS.md's freshness goals).
    public var latencyInRecognitions: Distribution
    public var fairness: Fairness
    public var serverProcess: ServerProcess?
    public var series: [Second]
    public var sessions: [Session]
    public var sessionErrors: Int
    public var summaryMismatches: Int
    public var protocolViolations: [String]
    /// One message the server gave per failure code (gRPC code as text → message).
    public var failureMessages: [String: String]
}
