internal import Foundation
internal import LegibleLoadCore

/// `--html`: one self-contained page (inline CSS and SVG, no script, nothing fetched), so it
/// opens from a mail attachment or a CI artifact the same and a browser has nothing to
/// complain about in its console.
enum HTMLReport {
    static func render(_ report: LoadReport, serverAddress: String, text: String) -> String {
        let c = report.configuration
        let seconds = report.series.map { Double($0.second) }
        var body = ""
        body += "<h1>legible-load</h1>\n"
        body +=
            "<p>\(escape("\(c.sessions) sessions × \(TextReport.number(c.fps)) fps for \(TextReport.number(c.durationSeconds)) s "))"
            + "\(escape("(ramp-up \(TextReport.number(c.rampUpSeconds)) s) against \(serverAddress); frames: \(c.frames)"))</p>\n"

        body += "<div class=\"tiles\">\n"
        func tile(_ label: String, _ value: String) {
            body +=
                "<div class=\"tile\"><div class=\"v\">\(escape(value))</div><div class=\"l\">\(escape(label))</div></div>\n"
        }
        tile("p50 latency (recognized)", TextReport.ms(report.latency.p50))
        tile("p99 latency (recognized)", TextReport.ms(report.latency.p99))
        tile("recognized / s", TextReport.fixed(report.rates.recognized, 2))
        tile("requested / s", TextReport.fixed(report.rates.requested, 2))
        tile("dropped", "\(report.counts.dropped) of \(report.counts.sent)")
        tile("unanswered", "\(report.counts.unanswered)")
        tile("Jain's fairness", report.fairness.jainIndex.map { TextReport.fixed($0, 3) } ?? "n/a")
        tile("result age p90", TextReport.ms(report.resultAge.p90))
        body += "</div>\n"

        body += "<h2>Latency of recognized frames, by the second they were scheduled in</h2>\n"
        body += LineChart(
            xs: seconds, xLabel: "second of the run (scheduled send time)", yLabel: "ms",
            series: [
                ("p50", "#1b7837", report.series.map(\.latencyP50)),
                ("p90", "#e08214", report.series.map(\.latencyP90)),
                ("p99", "#b2182b", report.series.map(\.latencyP99)),
                ("max", "#555555", report.series.map(\.latencyMax)),
            ]
        ).svg()

        body += "<h2>What became of the frames sent in each second</h2>\n"
        body += StackedBars(
            xs: seconds, xLabel: "second of the run (scheduled send time)", yLabel: "frames",
            series: [
                ("recognized", "#1b7837", report.series.map { Double($0.recognized) }),
                ("skipped", "#4393c3", report.series.map { Double($0.skipped) }),
                ("dropped", "#e08214", report.series.map { Double($0.dropped) }),
                ("failed", "#b2182b", report.series.map { Double($0.failed) }),
                ("client_skipped", "#762a83", report.series.map { Double($0.clientSkipped) }),
                ("unanswered", "#999999", report.series.map { Double($0.unanswered) }),
            ]
        ).svg()

        if report.serverProcess != nil {
            body += "<h2>Server process</h2>\n"
            body += LineChart(
                xs: seconds, xLabel: "second of the run", yLabel: "% of one core",
                series: [("CPU (user+sys)", "#2166ac", report.series.map(\.serverCPUPercent))]
            ).svg()
            body += LineChart(
                xs: seconds, xLabel: "second of the run", yLabel: "MB",
                series: [("RSS", "#8c510a", report.series.map(\.serverRSSMegabytes))]
            ).svg()
        }

        body += "<h2>Report</h2>\n<pre>\(escape(text))</pre>\n"

        body += "<h2>Sessions</h2>\n<table>\n<tr><th>#</th><th>script</th><th>sent</th><th>recognized</th>"
        body += "<th>dropped</th><th>skipped</th><th>failed</th><th>client_skipped</th><th>unanswered</th>"
        body += "<th>p50 ms</th><th>p99 ms</th><th>error</th></tr>\n"
        for s in report.sessions.prefix(500) {
            let cells: [String] = [
                "\(s.index)", s.script, "\(s.counts.sent)", "\(s.counts.recognized)", "\(s.counts.dropped)",
                "\(s.counts.skipped)", "\(s.counts.failed)", "\(s.counts.clientSkipped)", "\(s.counts.unanswered)",
                s.latencyP50.map { TextReport.fixed($0, 1) } ?? "-",
                s.latencyP99.map { TextReport.fixed($0, 1) } ?? "-",
                s.error ?? "",
            ]
            body += "<tr>" + cells.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
        }
        body += "</table>\n"
        if report.sessions.count > 500 {
            body += "<p>… and \(report.sessions.count - 500) more in the JSON report.</p>\n"
        }

        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>legible-load report</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1000px; }
            h1 { font-size: 22px; } h2 { font-size: 16px; margin-top: 28px; }
            .tiles { display: flex; flex-wrap: wrap; gap: 8px; }
            .tile { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; min-width: 140px; }
            .tile .v { font-size: 20px; font-weight: 600; } .tile .l { color: #666; font-size: 12px; }
            pre { background: #f6f6f6; padding: 12px; overflow-x: auto; font-size: 12px; }
            table { border-collapse: collapse; font-size: 12px; }
            td, th { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
            svg text { font: 11px system-ui, sans-serif; fill: #333; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}

/// Axes, ticks and a legend shared by the charts.
private struct ChartFrame {
    static let width = 900.0
    static let height = 280.0
    static let left = 60.0
    static let right = 150.0
    static let top = 12.0
    static let bottom = 40.0

    let xMax: Double
    let yMax: Double

    var plotWidth: Double { ChartFrame.width - ChartFrame.left - ChartFrame.right }
    var plotHeight: Double { ChartFrame.height - ChartFrame.top - ChartFrame.bottom }
    func x(_ value: Double) -> Double { ChartFrame.left + value / xMax * plotWidth }
    func y(_ value: Double) -> Double { ChartFrame.top + plotHeight - value / yMax * plotHeight }

    /// A step of 1, 2 or 5 × 10^k giving about five ticks up to `maximum`.
    static func tickStep(_ maximum: Double) -> Double {
        guard maximum > 0 else { return 1 }
        let raw = maximum / 5
        let magnitude = pow(10, floor(log10(raw)))
        let scaled = raw / magnitude
        return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * magnitude
    }

    func axes(xLabel: String, yLabel: String, legend: [(String, String)]) -> String {
        var out = ""
        let yStep = ChartFrame.tickStep(yMax)
        var tick = 0.0
        while tick <= yMax + yStep * 1e-9 {
            let yy = f(y(tick))
            out +=
                "<line x1=\"\(f(ChartFrame.left))\" y1=\"\(yy)\" x2=\"\(f(ChartFrame.left + plotWidth))\" y2=\"\(yy)\" stroke=\"#eee\"/>"
            out +=
                "<text x=\"\(f(ChartFrame.left - 6))\" y=\"\(yy)\" text-anchor=\"end\" dy=\"4\">\(label(tick))</text>\n"
            tick += yStep
        }
        let xStep = max(1, ChartFrame.tickStep(xMax))
        tick = 0
        while tick <= xMax + 1e-9 {
            let xx = f(x(tick))
            out +=
                "<line x1=\"\(xx)\" y1=\"\(f(ChartFrame.top + plotHeight))\" x2=\"\(xx)\" y2=\"\(f(ChartFrame.top + plotHeight + 4))\" stroke=\"#333\"/>"
            out +=
                "<text x=\"\(xx)\" y=\"\(f(ChartFrame.top + plotHeight + 16))\" text-anchor=\"middle\">\(label(tick))</text>\n"
            tick += xStep
        }
        out +=
            "<line x1=\"\(f(ChartFrame.left))\" y1=\"\(f(ChartFrame.top + plotHeight))\" x2=\"\(f(ChartFrame.left + plotWidth))\" "
        out += "y2=\"\(f(ChartFrame.top + plotHeight))\" stroke=\"#333\"/>"
        out +=
            "<line x1=\"\(f(ChartFrame.left))\" y1=\"\(f(ChartFrame.top))\" x2=\"\(f(ChartFrame.left))\" y2=\"\(f(ChartFrame.top + plotHeight))\" stroke=\"#333\"/>\n"
        out +=
            "<text x=\"\(f(ChartFrame.left + plotWidth / 2))\" y=\"\(f(ChartFrame.height - 6))\" text-anchor=\"middle\">"
        out += "\(HTMLReport.escape(xLabel))</text>\n"
        out +=
            "<text transform=\"translate(14 \(f(ChartFrame.top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">"
        out += "\(HTMLReport.escape(yLabel))</text>\n"
        for (index, (name, color)) in legend.enumerated() {
            let ly = ChartFrame.top + 10 + Double(index) * 18
            let lx = ChartFrame.left + plotWidth + 16
            out += "<rect x=\"\(f(lx))\" y=\"\(f(ly - 8))\" width=\"12\" height=\"10\" fill=\"\(color)\"/>"
            out += "<text x=\"\(f(lx + 18))\" y=\"\(f(ly + 1))\">\(HTMLReport.escape(name))</text>\n"
        }
        return out
    }

    func open() -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(ChartFrame.width))\" height=\"\(Int(ChartFrame.height))\" "
            + "viewBox=\"0 0 \(Int(ChartFrame.width)) \(Int(ChartFrame.height))\">\n"
    }

    func f(_ value: Double) -> String { String(format: "%.1f", value) }
    func label(_ value: Double) -> String { TextReport.number((value * 1000).rounded() / 1000) }
}

/// Lines over seconds; a nil value breaks its line.
private struct LineChart {
    let xs: [Double]
    let xLabel: String
    let yLabel: String
    let series: [(name: String, color: String, values: [Double?])]

    func svg() -> String {
        let peak = series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
        let frame = ChartFrame(xMax: max((xs.last ?? 0) + 1, 1), yMax: peak > 0 ? peak * 1.1 : 1)
        var out = frame.open()
        out += frame.axes(xLabel: xLabel, yLabel: yLabel, legend: series.map { ($0.name, $0.color) })
        for line in series {
            var path = ""
            var penDown = false
            for (x, value) in zip(xs, line.values) {
                guard let value else {
                    penDown = false
                    continue
                }
                // Each second's value is drawn at the middle of its second.
                path += (penDown ? " L" : " M") + "\(frame.f(frame.x(x + 0.5))) \(frame.f(frame.y(value)))"
                penDown = true
            }
            if !path.isEmpty {
                out += "<path d=\"\(path)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\"/>\n"
            }
            for (x, value) in zip(xs, line.values) {
                guard let value else { continue }
                out += "<circle cx=\"\(frame.f(frame.x(x + 0.5)))\" cy=\"\(frame.f(frame.y(value)))\" r=\"2.5\" "
                out += "fill=\"\(line.color)\"><title>\(HTMLReport.escape(line.name)) second \(Int(x)): "
                out += "\(TextReport.fixed(value, 1))</title></circle>\n"
            }
        }
        return out + "</svg>\n"
    }
}

/// One stacked bar per second.
private struct StackedBars {
    let xs: [Double]
    let xLabel: String
    let yLabel: String
    let series: [(name: String, color: String, values: [Double])]

    func svg() -> String {
        let totals = xs.indices.map { i in series.reduce(0) { $0 + $1.values[i] } }
        let peak = totals.max() ?? 0
        let frame = ChartFrame(xMax: max((xs.last ?? 0) + 1, 1), yMax: peak > 0 ? peak * 1.1 : 1)
        var out = frame.open()
        out += frame.axes(xLabel: xLabel, yLabel: yLabel, legend: series.map { ($0.name, $0.color) })
        let barWidth = max(1, frame.x(1) - frame.x(0) - 2)
        for (i, x) in xs.enumerated() {
            var base = 0.0
            for part in series where part.values[i] > 0 {
                let top = base + part.values[i]
                out +=
                    "<rect x=\"\(frame.f(frame.x(x) + 1))\" y=\"\(frame.f(frame.y(top)))\" width=\"\(frame.f(barWidth))\" "
                out += "height=\"\(frame.f(frame.y(base) - frame.y(top)))\" fill=\"\(part.color)\">"
                out +=
                    "<title>second \(Int(x)): \(Int(part.values[i])) \(HTMLReport.escape(part.name))</title></rect>\n"
                base = top
            }
        }
        return out + "</svg>\n"
    }
}
