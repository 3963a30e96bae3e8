internal import Foundation
internal import LegibleLoadCore

/// The report on standard output, laid out as ghz lays out its own.
enum TextReport {
    static func render(_ report: LoadReport, serverAddress: String) -> String {
        let c = report.configuration
        let counts = report.counts
        var out = "\nSummary:\n"
        if report.interrupted {
            out += "  Interrupted: the schedule stopped early; frames not yet due are not counted.\n"
        }
        if report.hitDeadline {
            out +=
                "  Hard deadline: sessions were still open \(number(c.drainTimeoutSeconds)) s after the schedule ended.\n"
        }
        let scripts = Array(Set(c.scripts)).sorted().joined(separator: ", ")
        func row(_ label: String, _ value: String) { out += "  " + pad(label + ":", 14) + value + "\n" }
        row(
            "Sessions",
            "\(c.sessions) (\(scripts)), \(number(c.fps)) fps each for \(number(c.durationSeconds)) s, "
                + "ramp-up \(number(c.rampUpSeconds)) s")
        row("Server", serverAddress + (report.serverProcess.map { " (pid \($0.pid))" } ?? ""))
        row("Frames", c.frames + (c.options.isEmpty ? "" : "; " + c.options.joined(separator: " ")))
        row("Count", "\(counts.scheduled) frames scheduled, \(counts.sent) sent")
        row("Total", "\(fixed(report.totalSeconds, 2)) s (schedule window \(fixed(report.windowSeconds, 2)) s)")
        row("Slowest", ms(report.latency.max))
        row("Fastest", ms(report.latency.min))
        row("Average", ms(report.latency.mean))
        row("Requested", "\(fixed(report.rates.requested, 2)) frames/s (\(c.sessions) sessions x \(number(c.fps)) fps)")
        row(
            "Sent",
            "\(fixed(report.rates.sent, 2)) frames/s (sent / duration; scheduled \(fixed(report.rates.scheduled, 2)))")
        row("Answered", "\(fixed(report.rates.answered, 2)) frames/s (answered / time to the last answer)")
        row("Recognized", "\(fixed(report.rates.recognized, 2)) frames/s (recognized / the same time)")

        out += "\nResponse time histogram (recognized frames, ms):\n"
        if report.histogram.buckets.isEmpty {
            out += "  (no recognized frames)\n"
        } else {
            let peak = max(report.histogram.peak, 1)
            let labelWidth = report.histogram.buckets.map { fixed($0.upper, 3).count }.max() ?? 0
            for bucket in report.histogram.buckets {
                let bar = String(repeating: "∎", count: (bucket.count * 40 + peak - 1) / peak)
                out +=
                    "  " + pad(fixed(bucket.lower, 3), labelWidth, right: true) + " – "
                    + pad(fixed(bucket.upper, 3), labelWidth, right: true) + " " + pad("[\(bucket.count)]", 8) + "|"
                    + bar + "\n"
            }
            out += "  (each row holds [from, to); the last row holds its upper bound too)\n"
        }

        out += "\nLatency distribution (recognized, scheduled send → result, nearest rank):\n"
        for p in reportedPercentiles {
            out += "  \(pad(number(p), 2, right: true)) % in \(ms(report.latency.percentile(p)))\n"
        }
        out += "  max    \(ms(report.latency.max))\n"

        out += "\nStatus distribution:\n"
        let total = max(counts.scheduled, 1)
        func status(_ name: String, _ count: Int) {
            let share = fixed(Double(count) * 100 / Double(total), 1)
            out += "  " + pad("[\(name)]", 18) + pad("\(count)", 8, right: true) + " frames (\(share) %)\n"
        }
        status("recognized", counts.recognized)
        status("dropped", counts.dropped)
        status("skipped", counts.skipped)
        status("failed", counts.failed)
        for (code, count) in counts.failedByCode.sorted(by: { $0.key < $1.key }) {
            status("  code \(code)", count)
            if let message = report.failureMessages[code] { out += "      e.g. \(message)\n" }
        }
        status("client_skipped", counts.clientSkipped)
        for (reason, count) in counts.clientSkippedByReason.sorted(by: { $0.key < $1.key }) {
            status("  \(reason)", count)
        }
        status("unanswered", counts.unanswered)
        out +=
            "  \(counts.accounted ? "Every frame accounted for" : "ACCOUNTING MISMATCH"): \(counts.scheduled) scheduled = "
            + "\(counts.sent) sent + \(counts.clientSkipped) client_skipped; \(counts.sent) sent = \(counts.recognized) + "
            + "\(counts.dropped) + \(counts.skipped) + \(counts.failed) answered + \(counts.unanswered) unanswered\n"

        out += "\nOther times (ms; p50 / p90 / p99 / max):\n"
        /// Each figure in milliseconds, or `unitless` (a ratio).
        func line(_ label: String, _ d: Distribution, unitless: Bool = false) {
            let value = { (x: Double?) in unitless ? (x.map { fixed($0, 2) } ?? "-") : ms(x) }
            out +=
                "  " + pad(label, 30)
                + (d.count == 0 ? "-" : "\(value(d.p50)) / \(value(d.p90)) / \(value(d.p99)) / \(value(d.max))")
                + (d.count == 0 ? "" : "  (n=\(d.count))") + "\n"
        }
        for name in ["dropped", "skipped", "failed"] {
            if let d = report.latencyByStatus[name] { line("latency, \(name)", d) }
        }
        line("result age (text shown)", report.resultAge)
        line("server time (Timing.total)", report.serverTime)
        line("recognize (Timing.recognize)", report.serverRecognize)
        line("send lag (harness)", report.sendLag)
        line("latency in recognitions", report.latencyInRecognitions, unitless: true)

        out += "\nFairness (recognized frames per session):\n"
        let f = report.fairness
        out +=
            "  Jain's index \(f.jainIndex.map { fixed($0, 3) } ?? "n/a") over \(c.sessions) sessions "
            + "(min \(f.recognizedMin), max \(f.recognizedMax), mean \(fixed(f.recognizedMean, 1)))\n"

        if let p = report.serverProcess {
            out += "\nServer process (pid \(p.pid), /proc):\n"
            out +=
                "  CPU  \(fixed(p.cpuSeconds, 2)) s user+sys, \(fixed(p.cpuPercent, 0)) % of one core over the run\n"
            out +=
                "  RSS  \(fixed(p.rssStartMegabytes, 1)) MB at start, \(fixed(p.rssEndMegabytes, 1)) MB at end, "
                + "peak \(fixed(p.rssPeakMegabytes, 1)) MB (sampled each second)\n"
        } else {
            out += "\nServer process: unknown (not a local unix socket; pass --server-pid)\n"
        }

        if report.sessionErrors > 0 || report.summaryMismatches > 0 || !report.protocolViolations.isEmpty {
            out += "\nProblems:\n"
            for session in report.sessions.prefix(20) {
                if let error = session.error { out += "  session \(session.index): \(error)\n" }
                if session.summaryMatches == false {
                    out += "  session \(session.index): the server's summary disagrees\n"
                }
            }
            if report.sessionErrors > 20 { out += "  … \(report.sessionErrors) sessions ended in error in all\n" }
            for violation in report.protocolViolations.prefix(20) { out += "  \(violation)\n" }
        }
        return out
    }

    static func ms(_ value: Double?) -> String { value.map { fixed($0, 2) + " ms" } ?? "-" }

    static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

    /// A number without trailing zeros: 5, 2.5, 0.013.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%g", value)
    }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
