/// The statistics a load report is made of, as pure functions over plain numbers.
public enum Statistics {
    /// The nearest-rank percentile of `sorted` (ascending): the smallest value such that at
    /// least `p` % of the values are less than or equal to it, i.e. the value of rank
    /// `ceil(p / 100 × n)` (1-based). Always one of the samples, never an interpolation: a
    /// reported p99 of 131 ms is a latency some frame really had. `p` = 0 gives the minimum,
    /// 100 the maximum; nil for no values.
    public static func percentile(sorted: [Double], _ p: Double) -> Double? {
        precondition(p >= 0 && p <= 100, "a percentile is 0...100")
        guard !sorted.isEmpty else { return nil }
        // p / 100 × n in floating point can land a hair above a whole rank (0.07 × 100 is
        // 7.000000000000001); round that noise away before taking the ceiling.
        let exact = p / 100 * Double(sorted.count)
        let nearest = exact.rounded()
        let rank = Int(abs(exact - nearest) < 1e-9 ? nearest : exact.rounded(.up))
        return sorted[max(rank, 1) - 1]
    }

    public static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// Jain's fairness index, `(Σx)² / (n · Σx²)`: 1 when every session got the same, `1/n`
    /// when one session got everything. nil when there are no sessions or every value is 0
    /// (nobody got anything, so there is nothing to share fairly or not).
    public static func jainIndex(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sum = values.reduce(0, +)
        let squares = values.reduce(0) { $0 + $1 * $1 }
        guard squares > 0 else { return nil }
        return sum * sum / (Double(values.count) * squares)
    }
}

/// The percentiles every distribution in a report carries.
public let reportedPercentiles: [Double] = [10, 25, 50, 75, 90, 95, 99]

/// Count, extremes, mean and the nearest-rank percentiles of one set of samples.
public struct Distribution: Sendable, Hashable, Codable {
    public var count: Int
    public var min: Double?
    public var mean: Double?
    public var max: Double?
    public var p10: Double?
    public var p25: Double?
    public var p50: Double?
    public var p75: Double?
    public var p90: Double?
    public var p95: Double?
    public var p99: Double?

    public init(_ values: [Double]) {
        let sorted = values.sorted()
        count = sorted.count
        min = sorted.first
        max = sorted.last
        mean = Statistics.mean(sorted)
        p10 = Statistics.percentile(sorted: sorted, 10)
        p25 = Statistics.percentile(sorted: sorted, 25)
        p50 = Statistics.percentile(sorted: sorted, 50)
        p75 = Statistics.percentile(sorted: sorted, 75)
        p90 = Statistics.percentile(sorted: sorted, 90)
        p95 = Statistics.percentile(sorted: sorted, 95)
        p99 = Statistics.percentile(sorted: sorted, 99)
    }

    /// The value of one of `reportedPercentiles`.
    public func percentile(_ p: Double) -> Double? {
        switch p {
        case 10: p10
        case 25: p25
        case 50: p50
        case 75: p75
        case 90: p90
        case 95: p95
        case 99: p99
        default: nil
        }
    }
}

/// Equal-width buckets from the smallest sample to the largest, as ghz draws them.
///
/// Bucket `i` of `count` holds the values in `[lower_i, upper_i)` with
/// `lower_i = min + i × (max − min) / count`; the last bucket also holds `max` itself. When
/// every sample is equal there is one bucket holding them all.
public struct Histogram: Sendable, Hashable, Codable {
    public struct Bucket: Sendable, Hashable, Codable {
        public var lower: Double
        public var upper: Double
        public var count: Int
    }

    public var buckets: [Bucket]

    public init(_ values: [Double], bucketCount: Int = 10) {
        precondition(bucketCount > 0)
        guard let low = values.min(), let high = values.max() else {
            buckets = []
            return
        }
        guard high > low else {
            buckets = [Bucket(lower: low, upper: high, count: values.count)]
            return
        }
        let width = (high - low) / Double(bucketCount)
        buckets = (0..<bucketCount).map { i in
            Bucket(
                lower: low + Double(i) * width, upper: i == bucketCount - 1 ? high : low + Double(i + 1) * width,
                count: 0)
        }
        for value in values {
            let index = Swift.min(Int((value - low) / width), bucketCount - 1)
            buckets[index].count += 1
        }
    }

    /// The largest bucket's count (for scaling bars).
    public var peak: Int { buckets.map(\.count).max() ?? 0 }
}
