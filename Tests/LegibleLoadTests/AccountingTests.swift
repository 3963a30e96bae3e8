import Testing

@testable import LegibleLoadCore

@Suite("Ledger, result age and the report's arithmetic")
struct AccountingTests {
    let ms: Nanoseconds = 1_000_000

    /// Two sessions, 5 frames each at 10 fps, every outcome represented.
    func ledgers() -> (OpenLoopSchedule, [SessionLedger]) {
        let schedule = OpenLoopSchedule(sessions: 2, framesPerSecond: 10, duration: 500 * ms, rampUp: 0)
        var a = SessionLedger(session: 0, script: "latin")
        var b = SessionLedger(session: 1, script: "latin")
        for i in 0..<5 {
            a.schedule(i, at: schedule.sendTime(session: 0, frame: i))
            b.schedule(i, at: schedule.sendTime(session: 1, frame: i))
        }
        for i in 0..<5 {
            a.queued(i)
            a.sent(i, at: a.frames[i].scheduled + 1 * ms)
        }
        a.answer(frameID: 1, .recognized, at: 60 * ms, serverMicros: 55_000, recognizeMicros: 40_000)
        a.answer(frameID: 2, .dropped, at: 200 * ms, serverMicros: nil)
        a.answer(frameID: 3, .recognized, at: 270 * ms, serverMicros: 60_000, recognizeMicros: 35_000)
        a.answer(frameID: 4, .failed(code: 3), at: 310 * ms, serverMicros: nil)
        // frame 5 stays unanswered
        b.queued(0)
        b.sent(0, at: 2 * ms)
        b.answer(frameID: 1, .skipped, at: 40 * ms, serverMicros: nil)
        b.clientSkipped(1, .socketFull)
        b.queued(2)  // never written: closing the ledger makes it not_written
        b.clientSkipped(3, .sessionClosed)
        b.clientSkipped(4, .sessionClosed)
        a.close()
        b.close()
        return (schedule, [a, b])
    }

    @Test func everyFrameIsAccountedFor() {
        let (schedule, ledgers) = ledgers()
        let report = LoadAnalysis.report(
            configuration: configuration, schedule: schedule, ledgers: ledgers, end: 600 * ms)
        let counts = report.counts
        #expect(counts.scheduled == 10)
        #expect(counts.sent == 6)
        #expect(counts.recognized == 2 && counts.dropped == 1 && counts.skipped == 1 && counts.failed == 1)
        #expect(counts.failedByCode == ["3": 1])
        #expect(counts.unanswered == 1)
        #expect(counts.clientSkipped == 4)
        #expect(counts.clientSkippedByReason == ["socket_full": 1, "session_closed": 2, "not_written": 1])
        #expect(counts.accounted)
        // Latency runs from the scheduled time: frame 1 of session 0 was due at 0 and answered at 60 ms.
        #expect(report.latency.count == 2 && report.latency.min == 60 && report.latency.max == 70)
        #expect(report.latencyByStatus["dropped"]?.p50 == 100)
        #expect(report.serverTime.p50 == 55)
        // Frame 1: due at 0, answered at 60 ms, recognized in 40 ms; frame 3: due at 200 ms,
        // answered at 270 ms, in 35 ms.
        #expect(report.serverRecognize.min == 35 && report.serverRecognize.max == 40)
        #expect(report.latencyInRecognitions.min == 1.5 && report.latencyInRecognitions.max == 2)
        #expect(report.sendLag.max == 2)
        #expect(report.series.map(\.scheduled) == [10])
        #expect(report.series[0].unanswered == 1 && report.series[0].clientSkipped == 4)
        #expect(report.sessions.map(\.counts.recognized) == [2, 0])
        #expect(report.fairness.jainIndex == 0.5)
        // Offered rate over the 0.5 s duration; throughput over the 0.5 s window (answers ended earlier).
        #expect(report.rates.requested == 20 && report.rates.scheduled == 20 && report.rates.sent == 12)
        #expect(report.rates.recognized == 4)
    }

    @Test func ledgerFlagsImpossibleAnswers() {
        var ledger = SessionLedger(session: 0, script: "latin")
        ledger.schedule(0, at: 0)
        ledger.schedule(1, at: 100 * ms)
        ledger.queued(0)
        ledger.sent(0, at: 1 * ms)
        ledger.answer(frameID: 1, .recognized, at: 50 * ms, serverMicros: nil)
        ledger.answer(frameID: 1, .dropped, at: 60 * ms, serverMicros: nil)
        ledger.answer(frameID: 2, .recognized, at: 70 * ms, serverMicros: nil)
        ledger.answer(frameID: 9, .recognized, at: 80 * ms, serverMicros: nil)
        #expect(ledger.protocolViolations.count == 3)
        #expect(ledger.frames[0].outcome == .answered(.recognized))
    }

    @Test func summaryMismatchIsReported() {
        var ledger = SessionLedger(session: 0, script: "latin")
        ledger.schedule(0, at: 0)
        ledger.queued(0)
        ledger.sent(0, at: 0)
        ledger.answer(frameID: 1, .recognized, at: 50 * ms, serverMicros: nil)
        ledger.serverSummary = ServerSummary(received: 1, recognized: 1, dropped: 0, skipped: 0, failed: 0)
        var wrong = ledger
        wrong.serverSummary?.dropped = 1
        let schedule = OpenLoopSchedule(sessions: 2, framesPerSecond: 1, duration: nanosecondsPerSecond, rampUp: 0)
        let report = LoadAnalysis.report(
            configuration: configuration, schedule: schedule, ledgers: [ledger, wrong], end: 0)
        #expect(report.sessions.map(\.summaryMatches) == [true, false])
        #expect(report.summaryMismatches == 1)
    }

    @Test func resultAgeGrowsBetweenAnswers() {
        // A frame every 100 ms, each answered 30 ms after it was due: the shown text is 30 ms
        // old on arrival and 129 ms old just before the next one.
        let refreshes = (0..<5).map { (i: Nanoseconds) in
            ResultAge.Refresh(arrived: i * 100 * ms + 30 * ms, frameScheduled: i * 100 * ms)
        }
        let ages = ResultAge.samples(refreshes, until: 500 * ms, step: 10 * ms)
        #expect(ages.count == 47)  // 30 ms … 490 ms
        #expect(ages.min() == 30 * ms && ages.max() == 120 * ms)
        let expected: [Nanoseconds] = [30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 30]
        #expect(Array(ages.prefix(11)) == expected.map { $0 * ms })
        // An answer for an older frame arriving late does not make the text look older.
        let late = ResultAge.samples(
            [.init(arrived: 10 * ms, frameScheduled: 5 * ms), .init(arrived: 20 * ms, frameScheduled: 0)],
            until: 30 * ms,
            step: 10 * ms)
        #expect(late == [5 * ms, 15 * ms])
        #expect(ResultAge.samples([], until: 100 * ms, step: 10 * ms).isEmpty)
    }

    @Test func processSamplesGiveCPUAndMemory() {
        var series = (0..<3).map { LoadReport.Second(second: $0) }
        let samples = [
            ProcessSample(time: -20 * ms, cpuSeconds: 10, rssBytes: 100 << 20),
            ProcessSample(time: 980 * ms, cpuSeconds: 10.5, rssBytes: 120 << 20),
            ProcessSample(time: 1980 * ms, cpuSeconds: 11.5, rssBytes: 110 << 20),
        ]
        let process = LoadAnalysis.processReport(pid: 42, samples: samples, series: &series)!
        #expect(process.cpuSeconds == 1.5 && process.rssPeakMegabytes == 120 && process.rssEndMegabytes == 110)
        #expect(abs(process.cpuPercent - 75) < 1e-9)
        #expect(series.map(\.serverCPUPercent) == [50, 100, nil])
    }

    @Test func loopbackTargetsOnly() {
        for host in [
            "localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
        ] {
            #expect(TargetPolicy.isLoopback(host: host), "\(host)")
        }
        for host in [
            "10.0.0.1", "8.8.8.8", "128.0.0.1", "::2", "example.com", "localhost.example.com", "0.0.0.0", "::", "",
        ] {
            #expect(!TargetPolicy.isLoopback(host: host), "\(host)")
        }
    }

    @Test func testPatternsAreDeterministicAndDiffer() {
        let a = TestPattern.render(width: 320, height: 240, seed: 7, index: 0)
        #expect(a == TestPattern.render(width: 320, height: 240, seed: 7, index: 0))
        #expect(a.pixels.count == 320 * 240 && !a.text.isEmpty)
        let b = TestPattern.render(width: 320, height: 240, seed: 7, index: 1)
        let c = TestPattern.render(width: 320, height: 240, seed: 8, index: 0)
        #expect(a.text != b.text && a.pixels != c.pixels)
        // Dark ink on a light background.
        #expect(a.pixels.filter { $0 < 80 }.count > 500 && a.pixels.filter { $0 > 150 }.count > 320 * 240 / 2)
    }

    let configuration = LoadReport.Configuration(
        sessions: 2, fps: 10, durationSeconds: 0.5, rampUpSeconds: 0, maxFrames: nil, drainTimeoutSeconds: 10,
        scripts: ["latin"], server: "unix:test", frames: "test", options: [])
}
