/// One reading of the server process's counters from /proc.
public struct ProcessSample: Sendable, Hashable {
    /// Nanoseconds from t0 (negative before the schedule started).
    public var time: Nanoseconds
    /// user + sys CPU time so far.
    public var cpuSeconds: Double
    public var rssBytes: Int

    public init(time: Nanoseconds, cpuSeconds: Double, rssBytes: Int) {
        self.time = time
        self.cpuSeconds = cpuSeconds
        self.rssBytes = rssBytes
    }
}

/// Turns what a run recorded (the ledgers, the schedule, process samples) into a `LoadReport`.
/// Pure: no clock, no socket; the tests feed it made-up ledgers.
public enum LoadAnalysis {
    /// - Parameters:
    ///   - end: when the run ended, in nanoseconds from t0.
    ///   - processSamples: in time order; the first and last bound the CPU figures.
    ///   - interruptedAt: when SIGINT cut the schedule short, if it did.
    public static func report(
        configuration: LoadReport.Configuration, schedule: OpenLoopSchedule, ledgers: [SessionLedger], end: Nanoseconds,
        processSamples: [ProcessSample] = [], serverPID: Int32? = nil, hitDeadline: Bool = false,
        interruptedAt: Nanoseconds? = nil
    ) -> LoadReport {
        let ms = 1e-6  // nanoseconds → milliseconds
        // An interrupted schedule ended when it was cut: its window and offered rates end there.
        let window = interruptedAt.map { min(max($0, 1), schedule.window) } ?? schedule.window
        let offeredSpan = interruptedAt.map { min(max($0, 1), schedule.duration) } ?? schedule.duration
        var counts = LoadReport.Counts()
        var latencies: [String: [Double]] = [:]
        var sendLags: [Double] = []
        var serverTimes: [Double] = []
        var recognizeTimes: [Double] = []
        var latenciesInRecognitions: [Double] = []
        var ages: [Double] = []
        var lastAnswered: Nanoseconds = 0
        let seriesLength = Int((max(window, end) + nanosecondsPerSecond - 1) / nanosecondsPerSecond)
        var series = (0..<max(seriesLength, 1)).map { LoadReport.Second(second: $0) }
        var secondLatencies = [[Double]](repeating: [], count: series.count)
        var sessions: [LoadReport.Session] = []
        var violations: [String] = []
        var failureMessages: [String: String] = [:]
        let ageStep = ageSamplingStep(sessions: ledgers.count, span: max(window, end))
        let frameInterval = schedule.offset(ofFrame: 1)

        for ledger in ledgers {
            var sessionCounts = LoadReport.Counts()
            var sessionLatencies: [Double] = []
            var refreshes: [ResultAge.Refresh] = []
            for frame in ledger.frames {
                counts.add(frame)
                sessionCounts.add(frame)
                let second = min(max(Int(frame.scheduled / nanosecondsPerSecond), 0), series.count - 1)
                series[second].scheduled += 1
                if let sent = frame.sent {
                    sendLags.append(Double(sent - frame.scheduled) * ms)
                }
                switch frame.outcome {
                case .scheduled, .queued, .clientSkipped: series[second].clientSkipped += 1
                case .sent:
                    series[second].sent += 1
                    series[second].unanswered += 1
                case .answered(let answer):
                    series[second].sent += 1
                    let latency = Double(frame.latency!) * ms
                    lastAnswered = max(lastAnswered, frame.answered!)
                    latencies[statusName(answer), default: []].append(latency)
                    switch answer {
                    case .recognized:
                        series[second].recognized += 1
                        secondLatencies[second].append(latency)
                        sessionLatencies.append(latency)
                        if let micros = frame.serverMicros { serverTimes.append(Double(micros) / 1000) }
                        if let micros = frame.recognizeMicros, micros > 0 {
                            recognizeTimes.append(Double(micros) / 1000)
                            latenciesInRecognitions.append(latency / (Double(micros) / 1000))
                        }
                        refreshes.append(ResultAge.Refresh(arrived: frame.answered!, frameScheduled: frame.scheduled))
                    case .skipped:
                        series[second].skipped += 1
                        refreshes.append(ResultAge.Refresh(arrived: frame.answered!, frameScheduled: frame.scheduled))
                    case .dropped: series[second].dropped += 1
                    case .failed: series[second].failed += 1
                    }
                }
            }
            // The session shows text until its sending window closes: its last frame's time
            // plus one frame interval.
            if let last = ledger.frames.last {
                let until = last.scheduled + frameInterval
                ages += ResultAge.samples(refreshes, until: until, step: ageStep).map { Double($0) * ms }
            }
            let sorted = sessionLatencies.sorted()
            let matches = ledger.serverSummary.map { summary in
                summary.received == UInt64(sessionCounts.sent)
                    && summary.recognized == UInt64(sessionCounts.recognized)
                    && summary.dropped == UInt64(sessionCounts.dropped)
                    && summary.skipped == UInt64(sessionCounts.skipped)
                    && summary.failed == UInt64(sessionCounts.failed)
            }
            sessions.append(
                LoadReport.Session(
                    index: ledger.session, script: ledger.script, counts: sessionCounts,
                    latencyP50: Statistics.percentile(sorted: sorted, 50),
                    latencyP99: Statistics.percentile(sorted: sorted, 99),
                    error: ledger.error, serverSummary: ledger.serverSummary, summaryMatches: matches))
            for (code, message) in ledger.failureMessages where failureMessages[String(code)] == nil {
                failureMessages[String(code)] = message
            }
            violations += ledger.protocolViolations.map { "session \(ledger.session): \($0)" }
        }

        for index in series.indices {
            let sorted = secondLatencies[index].sorted()
            series[index].latencyP50 = Statistics.percentile(sorted: sorted, 50)
            series[index].latencyP90 = Statistics.percentile(sorted: sorted, 90)
            series[index].latencyP99 = Statistics.percentile(sorted: sorted, 99)
            series[index].latencyMax = sorted.last
        }
        let process = serverPID.flatMap { pid in
            processReport(pid: pid, samples: processSamples, series: &series)
        }

        let seconds = { (ns: Nanoseconds) in Double(ns) / Double(nanosecondsPerSecond) }
        let recognizedPerSession = sessions.map { Double($0.counts.recognized) }
        let recognized = latencies["recognized"] ?? []
        return LoadReport(
            configuration: configuration,
            windowSeconds: seconds(window),
            totalSeconds: seconds(end),
            hitDeadline: hitDeadline,
            interrupted: interruptedAt != nil,
            counts: counts,
            rates: LoadReport.Rates(
                requested: schedule.requestedRate,
                scheduled: Double(counts.scheduled) / seconds(offeredSpan),
                sent: Double(counts.sent) / seconds(offeredSpan),
                answered: Double(counts.answered) / seconds(max(window, lastAnswered)),
                recognized: Double(counts.recognized) / seconds(max(window, lastAnswered))),
            latency: Distribution(recognized),
            latencyByStatus: latencies.mapValues(Distribution.init),
            histogram: Histogram(recognized),
            resultAge: Distribution(ages),
            sendLag: Distribution(sendLags),
            serverTime: Distribution(serverTimes),
            serverRecognize: Distribution(recognizeTimes),
            latencyInRecognitions: Distribution(latenciesInRecognitions),
            fairness: LoadReport.Fairness(
                jainIndex: Statistics.jainIndex(recognizedPerSession),
                recognizedMin: Int(recognizedPerSession.min() ?? 0),
                recognizedMax: Int(recognizedPerSession.max() ?? 0),
                recognizedMean: Statistics.mean(recognizedPerSession) ?? 0),
            serverProcess: process,
            series: series,
            sessions: sessions,
            sessionErrors: sessions.filter { $0.error != nil }.count,
            summaryMismatches: sessions.filter { $0.summaryMatches == false }.count,
            protocolViolations: violations,
            failureMessages: failureMessages)
    }

    static func statusName(_ answer: FrameOutcome.Answer) -> String {
        switch answer {
        case .recognized: "recognized"
        case .dropped: "dropped"
        case .skipped: "skipped"
        case .failed: "failed"
        }
    }

    /// 10 ms, coarser when sessions × span would make more than ~2 million samples.
    static func ageSamplingStep(sessions: Int, span: Nanoseconds) -> Nanoseconds {
        let fine: Nanoseconds = 10_000_000
        let budget: Int64 = 2_000_000
        let needed = Int64(max(sessions, 1)) * (span / fine + 1)
        return needed <= budget ? fine : fine * ((needed + budget - 1) / budget)
    }

    /// CPU and RSS over the run, and per second into `series`.
    static func processReport(pid: Int32, samples: [ProcessSample], series: inout [LoadReport.Second])
        -> LoadReport.ServerProcess?
    {
        guard let first = samples.first, let last = samples.last else { return nil }
        let megabytes = { (bytes: Int) in Double(bytes) / 1_048_576 }
        for (previous, sample) in zip(samples, samples.dropFirst()) where sample.time > previous.time {
            // The second in which the interval's midpoint falls.
            let middle = (previous.time + sample.time) / 2
            guard middle >= 0 else { continue }
            let second = Int(middle / nanosecondsPerSecond)
            guard second < series.count else { continue }
            let wall = Double(sample.time - previous.time) / Double(nanosecondsPerSecond)
            series[second].serverCPUPercent = (sample.cpuSeconds - previous.cpuSeconds) / wall * 100
            series[second].serverRSSMegabytes = megabytes(sample.rssBytes)
        }
        let wall = Double(last.time - first.time) / Double(nanosecondsPerSecond)
        let cpu = last.cpuSeconds - first.cpuSeconds
        return LoadReport.ServerProcess(
            pid: pid, cpuSeconds: cpu, cpuPercent: wall > 0 ? cpu / wall * 100 : 0,
            rssStartMegabytes: megabytes(first.rssBytes), rssEndMegabytes: megabytes(last.rssBytes),
            rssPeakMegabytes: megabytes(samples.map(\.rssBytes).max() ?? 0))
    }
}
