/// Focus and exposure measures of a gray image: the numbers behind the quality hints.
public struct ImageQuality: Sendable, Hashable, Codable {
    /// Focus: the variance of the 4-neighbour Laplacian over the interior pixels of every
    /// other row, divided by `contrast` squared and scaled by 10⁴. The division makes it
    /// exposure-blind: darkening or flattening a frame scales the Laplacian and the range
    /// alike, so a sharp frame in dim light is not called blurry.
    public var sharpness: Float
    /// Mean gray level, 0…255.
    public var brightness: Float
    /// 99th minus 1st percentile of the gray levels. Text is a few percent of a camera
    /// frame's pixels, so narrower percentiles would measure the background only.
    public var contrast: Float

    public init(sharpness: Float, brightness: Float, contrast: Float) {
        self.sharpness = sharpness
        self.brightness = brightness
        self.contrast = contrast
    }

    /// Measures a gray image of `width` x `height` whose rows are `bytesPerRow` apart
    /// (padding is never read). One pass for the histogram (on a quarter of the pixels), one
    /// for the Laplacian (on every other row, sixteen pixels at a time), integer sums
    /// throughout.
    public static func measure(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, bytesPerRow: Int)
        -> ImageQuality
    {
        guard width > 0, height > 0, let base = pixels.baseAddress else {
            return ImageQuality(sharpness: 0, brightness: 0, contrast: 0)
        }
        precondition(pixels.count >= (height - 1) * bytesPerRow + width, "the buffer is smaller than the image")
        // The histogram (mean and percentiles) from every other pixel of every other row: a
        // quarter of a 720p frame is 230,400 samples, which moves no percentile by a level on
        // the generated frames, at a quarter of the cost.
        var histogram = [Int](repeating: 0, count: 256)
        var total = 0
        var count = 0
        histogram.withUnsafeMutableBufferPointer { counts in
            let counts = counts.baseAddress!
            var y = 0
            while y < height {
                let row = base + y * bytesPerRow
                var x = 0
                while x < width {
                    counts[Int(row[x])] &+= 1
                    x &+= 2
                }
                count &+= (width + 1) / 2
                y &+= 2
            }
            for level in 0..<256 { total &+= level &* counts[level] }
        }
        let brightness = Float(Double(total) / Double(count))
        let range = percentile(0.99, histogram, count) - percentile(0.01, histogram, count)
        let contrast = Float(range)

        var sharpness: Float = 0
        if width >= 3, height >= 3 {
            var sum = 0
            var sumOfSquares = 0
            // Every other row: each pixel still enters the Laplacian of a row above or below
            // it, at half the cost of every row.
            var rows = 0
            for y in stride(from: 1, to: height - 1, by: 2) {
                let (rowSum, rowSquares) = laplacianSums(
                    above: base + (y - 1) * bytesPerRow, row: base + y * bytesPerRow,
                    below: base + (y + 1) * bytesPerRow,
                    width: width)
                sum &+= rowSum
                sumOfSquares &+= rowSquares
                rows &+= 1
            }
            let n = Double((width - 2) * rows)
            let mean = Double(sum) / n
            let variance = Double(sumOfSquares) / n - mean * mean
            sharpness = range > 0 ? Float(variance * 10_000 / Double(range * range)) : 0
        }
        return ImageQuality(sharpness: sharpness, brightness: brightness, contrast: contrast)
    }

    /// The sum and the sum of squares of the 4-neighbour Laplacian over one row's interior
    /// pixels, sixteen at a time. Lanes are 32-bit: a lane adds at most 16384 / 16 values of
    /// |laplacian| <= 1020 (squares <= 1,040,400), which fits.
    @inline(__always)
    private static func laplacianSums(
        above: UnsafePointer<UInt8>, row: UnsafePointer<UInt8>, below: UnsafePointer<UInt8>, width: Int
    ) -> (Int, Int) {
        typealias Lanes = SIMD16<Int32>
        var sums = Lanes()
        var squares = Lanes()
        var x = 1
        while x + 16 <= width - 1 {
            // Widened lane by lane: `Lanes(truncatingIfNeeded:)` compiles to a call that is not
            // inlined, a quarter of this function's time (perf, in an engine worker).
            @inline(__always) func load(_ pointer: UnsafePointer<UInt8>) -> Lanes {
                let bytes = UnsafeRawPointer(pointer).loadUnaligned(as: SIMD16<UInt8>.self)
                var lanes = Lanes()
                for lane in 0..<16 { lanes[lane] = Int32(bytes[lane]) }
                return lanes
            }
            let laplacian =
                load(above + x) &+ load(below + x) &+ load(row + x - 1) &+ load(row + x + 1) &- load(row + x) &* 4
            sums &+= laplacian
            squares &+= laplacian &* laplacian
            x &+= 16
        }
        var sum = Int(sums.wrappedSum())
        var sumOfSquares = 0
        for lane in 0..<16 { sumOfSquares &+= Int(squares[lane]) }
        while x < width - 1 {
            let laplacian = Int(above[x]) &+ Int(below[x]) &+ Int(row[x - 1]) &+ Int(row[x + 1]) &- 4 &* Int(row[x])
            sum &+= laplacian
            sumOfSquares &+= laplacian &* laplacian
            x &+= 1
        }
        return (sum, sumOfSquares)
    }

    /// The smallest level with at least `fraction` of the pixels at or below it.
    private static func percentile(_ fraction: Double, _ histogram: [Int], _ count: Int) -> Int {
        let target = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for level in 0..<256 {
            seen += histogram[level]
            if seen >= target { return level }
        }
        return 255
    }
}
