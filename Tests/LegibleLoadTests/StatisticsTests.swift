import Testing

@testable import LegibleLoadCore

@Suite("Load statistics")
struct StatisticsTests {
    @Test func nearestRankPercentiles() {
        // The classic example: n = 5, sorted 15, 20, 35, 40, 50.
        let values: [Double] = [15, 20, 35, 40, 50]
        #expect(Statistics.percentile(sorted: values, 5) == 15)  // rank ceil(0.25) = 1
        #expect(Statistics.percentile(sorted: values, 30) == 20)  // rank ceil(1.5) = 2
        #expect(Statistics.percentile(sorted: values, 40) == 20)  // rank 2 exactly: not interpolated
        #expect(Statistics.percentile(sorted: values, 50) == 35)  // rank ceil(2.5) = 3
        #expect(Statistics.percentile(sorted: values, 100) == 50)
        #expect(Statistics.percentile(sorted: values, 0) == 15)
        #expect(Statistics.percentile(sorted: [], 50) == nil)
    }

    @Test func percentilesOfOneToHundred() {
        let values = (1...100).map(Double.init)
        for p in [1.0, 7, 10, 25, 50, 75, 90, 95, 99, 100] {
            // Rank p of 100 is exactly p: floating-point noise must not push it to p + 1.
            #expect(Statistics.percentile(sorted: values, p) == p)
        }
        #expect(Statistics.percentile(sorted: values, 99.5) == 100)
        let distribution = Distribution(values.shuffled())
        #expect(distribution.count == 100 && distribution.min == 1 && distribution.max == 100)
        #expect(distribution.p50 == 50 && distribution.p99 == 99 && distribution.mean == 50.5)
    }

    @Test func histogramBuckets() {
        let histogram = Histogram([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], bucketCount: 10)
        #expect(histogram.buckets.count == 10)
        #expect(histogram.buckets.map(\.lower) == (0..<10).map(Double.init))
        #expect(histogram.buckets.map(\.upper) == (1...10).map(Double.init))
        // [lower, upper): every bucket holds its lower bound; the last also holds the maximum.
        #expect(histogram.buckets.map(\.count) == [1, 1, 1, 1, 1, 1, 1, 1, 1, 2])
        #expect(histogram.buckets.map(\.count).reduce(0, +) == 11)
        #expect(histogram.peak == 2)

        let skewed = Histogram([50, 51, 52, 53, 150], bucketCount: 4)
        #expect(skewed.buckets.map(\.count) == [4, 0, 0, 1])
        #expect(skewed.buckets[1].lower == 75)
    }

    @Test func histogramEdgeCases() {
        #expect(Histogram([]).buckets.isEmpty)
        let flat = Histogram([7, 7, 7])
        #expect(flat.buckets == [Histogram.Bucket(lower: 7, upper: 7, count: 3)])
    }

    @Test func jainIndex() {
        #expect(Statistics.jainIndex([5, 5, 5, 5]) == 1)
        #expect(Statistics.jainIndex([9, 0, 0, 0]) == 0.25)  // one-hot: 1/n
        #expect(Statistics.jainIndex([1, 0]) == 0.5)
        // Two sessions, one with twice the other: (3)² / (2 · 5) = 0.9.
        #expect(abs(Statistics.jainIndex([1, 2])! - 0.9) < 1e-12)
        #expect(Statistics.jainIndex([]) == nil)
        #expect(Statistics.jainIndex([0, 0]) == nil)
    }
}
