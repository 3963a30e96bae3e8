internal import LegibleCore

/// A Prometheus metric's type.
public enum MetricType: String, Sendable {
    case counter
    case gauge
    case histogram
}

/// Counters, gauges and histograms with labels, rendered in Prometheus' text format (0.0.4).
///
/// Written from the server's loop thread and read by the metrics endpoint's HTTP thread, so
/// every access takes one lock; an update costs a dictionary look-up, a render walks
/// everything. Families are declared once with `define`; an update to an undeclared name is a
/// programming error.
public final class Metrics: Sendable {
    private struct Family {
        var type: MetricType
        var help: String
        var buckets: [Double]
        /// Rendered label set (`{a="x",b="y"}`, or empty) → its series.
        var series: [String: Series] = [:]
    }

    private struct Series {
        var value: Double = 0
        /// Histograms: cumulative counts per bucket upper bound, then the sum and count.
        var bucketCounts: [UInt64] = []
        var sum: Double = 0
        var count: UInt64 = 0
    }

    private let families = Locked<[String: Family]>([:])
    private let order = Locked<[String]>([])

    public init() {}

    /// Declares a family; `buckets` (upper bounds, ascending) for histograms.
    public func define(_ name: String, _ type: MetricType, help: String, buckets: [Double] = []) {
        precondition(type != .histogram || !buckets.isEmpty, "a histogram needs buckets")
        families.withLock { $0[name] = Family(type: type, help: help, buckets: buckets) }
        order.withLock { $0.append(name) }
    }

    /// Adds `amount` to a counter (or a gauge).
    public func increment(_ name: String, _ labels: KeyValuePairs<String, String> = [:], by amount: Double = 1) {
        update(name, labels) { series, _ in series.value += amount }
    }

    /// Sets a gauge.
    public func set(_ name: String, _ labels: KeyValuePairs<String, String> = [:], to value: Double) {
        update(name, labels) { series, _ in series.value = value }
    }

    /// Records one observation in a histogram.
    public func observe(_ name: String, _ labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        update(name, labels) { series, buckets in
            if series.bucketCounts.isEmpty { series.bucketCounts = Array(repeating: 0, count: buckets.count) }
            for (index, bound) in buckets.enumerated() where value <= bound { series.bucketCounts[index] += 1 }
            series.sum += value
            series.count += 1
        }
    }

    /// The current value of a counter or gauge series (tests and logs).
    public func value(_ name: String, _ labels: KeyValuePairs<String, String> = [:]) -> Double {
        families.withLock { $0[name]?.series[Self.render(labels)]?.value ?? 0 }
    }

    /// Every family in declaration order, in the text exposition format.
    public func render() -> String {
        let names = order.withLock { $0 }
        return families.withLock { families in
            var out = ""
            for name in names {
                guard let family = families[name] else { continue }
                out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type.rawValue)\n"
                for (labels, series) in family.series.sorted(by: { $0.key < $1.key }) {
                    switch family.type {
                    case .counter, .gauge:
                        out += "\(name)\(labels) \(Self.number(series.value))\n"
                    case .histogram:
                        let inner = labels.isEmpty ? "" : String(labels.dropFirst().dropLast()) + ","
                        for (index, bound) in family.buckets.enumerated() {
                            out +=
                                "\(name)_bucket{\(inner)le=\"\(Self.number(bound))\"} \(series.bucketCounts[index])\n"
                        }
                        out += "\(name)_bucket{\(inner)le=\"+Inf\"} \(series.count)\n"
                        out += "\(name)_sum\(labels) \(Self.number(series.sum))\n"
                        out += "\(name)_count\(labels) \(series.count)\n"
                    }
                }
            }
            return out
        }
    }

    private func update(
        _ name: String, _ labels: KeyValuePairs<String, String>, _ change: (inout Series, [Double]) -> Void
    ) {
        let key = Self.render(labels)
        families.withLock { families in
            guard families[name] != nil else { preconditionFailure("metric \(name) was not defined") }
            let buckets = families[name]!.buckets
            // In place: no copy of the family's series on the way.
            change(&families[name]!.series[key, default: Series()], buckets)
        }
    }

    /// `{a="x",b="y"}` with label values escaped as the format wants; empty for no labels.
    static func render(_ labels: KeyValuePairs<String, String>) -> String {
        guard !labels.isEmpty else { return "" }
        let pairs = labels.map { key, value in
            var escaped = ""
            for character in value {
                switch character {
                case "\\": escaped += "\\\\"
                case "\"": escaped += "\\\""
                case "\n": escaped += "\\n"
                default: escaped.append(character)
                }
            }
            return "\(key)=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// A sample value: integers without a decimal point, others with up to 6 significant
    /// decimals; never the locale's separator.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
