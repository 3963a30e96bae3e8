import Foundation
import LegibleMetrics
import Testing

/// What a Prometheus scraper reads from /metrics: the text format, labels escaped, histograms
/// cumulative, and no update lost when two threads write at once.
@Suite("Metrics")
struct MetricsTests {
    @Test func countersAndGaugesRenderInTheTextFormat() {
        let metrics = Metrics()
        metrics.define("frames_total", .counter, help: "Frames read.")
        metrics.define("sessions", .gauge, help: "Sessions open.")
        metrics.increment("frames_total", ["script": "latin"])
        metrics.increment("frames_total", ["script": "latin"], by: 2)
        metrics.increment("frames_total", ["script": "chinese"])
        metrics.set("sessions", to: 1.5)
        #expect(
            metrics.render() == """
                # HELP frames_total Frames read.
                # TYPE frames_total counter
                frames_total{script="chinese"} 1
                frames_total{script="latin"} 3
                # HELP sessions Sessions open.
                # TYPE sessions gauge
                sessions 1.5

                """)
        #expect(metrics.value("frames_total", ["script": "latin"]) == 3)
        #expect(metrics.value("frames_total", ["script": "korean"]) == 0, "a series never written reads 0")
    }

    @Test func labelValuesAreEscaped() {
        let metrics = Metrics()
        metrics.define("errors_total", .counter, help: "Errors.")
        metrics.increment("errors_total", ["reason": "a \"quoted\" back\\slash\nnewline"])
        #expect(metrics.render().contains(#"errors_total{reason="a \"quoted\" back\\slash\nnewline"} 1"#))
    }

    @Test func histogramsAreCumulativeWithSumAndCount() {
        let metrics = Metrics()
        metrics.define("seconds", .histogram, help: "Time.", buckets: [0.1, 1])
        for value in [0.0625, 0.5, 0.5, 2.0] { metrics.observe("seconds", ["script": "latin"], value) }
        let lines = metrics.render().split(separator: "\n").map(String.init)
        #expect(
            Array(lines.dropFirst(2)) == [
                #"seconds_bucket{script="latin",le="0.1"} 1"#,
                #"seconds_bucket{script="latin",le="1"} 3"#,
                #"seconds_bucket{script="latin",le="+Inf"} 4"#,
                #"seconds_sum{script="latin"} 3.0625"#,
                #"seconds_count{script="latin"} 4"#,
            ])
    }

    @Test func numbersNeverUseTheLocaleOrExponentsForIntegers() {
        let metrics = Metrics()
        metrics.define("g", .gauge, help: "A gauge.")
        for (value, shown) in [(1e12, "1000000000000"), (-3, "-3"), (0.25, "0.25"), (.infinity, "+Inf"), (.nan, "NaN")]
        {
            metrics.set("g", to: value)
            #expect(metrics.render().hasSuffix("g \(shown)\n"), "\(value)")
        }
    }

    @Test func concurrentUpdatesAreAllCounted() async {
        let metrics = Metrics()
        metrics.define("hits_total", .counter, help: "Hits.")
        metrics.define("seconds", .histogram, help: "Time.", buckets: [1])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<5_000 {
                        metrics.increment("hits_total")
                        metrics.observe("seconds", [:], 0.5)
                    }
                }
            }
        }
        #expect(metrics.value("hits_total") == 20_000)
        #expect(metrics.render().contains("seconds_count 20000\n"))
    }
}
