
/// Focus and exposure measures of a gray image: the numbers behind the quality hints.
public struct ImageQuality: Sendable, Hashable {
    /// Focus: the variance of the 4-neighbour Laplacian over the interior pixels, divided by
    /// `contrast` squared and scaled by 10⁴. The division makes it exposure-blind: darkening
    /// or flattening a frame scales the Laplacian and the range alike, so a sharp frame in dim
    /// light is not called blurry.
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
    /// (padding is never read). One pass for the histogram, one for the Laplacian, integer
    /// sums throughout: ~1 ms at 1280x720 in a release build.
    public static func measure(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, bytesPerRow: Int)
        -> ImageQuality
    {
        guard width > 0, height > 0, let base = pixels.baseAddress else {
            return ImageQuality(sharpness: 0, brightness: 0, contrast: 0)
        }
        precondition(pixels.count >= (height - 1) * bytesPerRow + width, "the buffer is smaller than the image")
        var histogram = [Int](repeating: 0, count: 256)
        var total = 0
        histogram.withUnsafeMutableBufferPointer { counts in
            for y in 0..<height {
                let row = base + y * bytesPerRow
                for x in 0..<width {
                    counts[Int(row[x])] += 1
                }
            }
            for level in 0..<256 { total += level * counts[level] }
        }
        let count = width * height
        let brightness = Float(Double(total) / Double(count))
        let range = percentile(0.99, histogram, count) - percentile(0.01, histogram, count)
        let contrast = Float(range)

        var sharpness: Float = 0
        if width >= 3, height >= 3 {
            var sum = 0
            var sumOfSquares = 0
            for y in 1..<(height - 1) {
                let row = base + y * bytesPerRow
                let above = row - bytesPerRow
                let below = row + bytesPerRow
                var rowSum = 0
                var rowSquares = 0
                for x in 1..<(width - 1) {
                    let laplacian = Int(above[x]) + Int(below[x]) + Int(row[x - 1]) + Int(row[x + 1]) - 4 * Int(row[x])
                    rowSum += laplacian
                    rowSquares += laplacian * laplacian
                }
                sum += rowSum
                sumOfSquares += rowSquares
            }
            let n = Double((width - 2) * (height - 2))
            let mean = Double(sum) / n
            let variance = Double(sumOfSquares) / n - mean * mean
            sharpness = range > 0 ? Float(variance * 10_000 / Double(range * range)) : 0
        }
        return ImageQuality(sharpness: sharpness, brightness: brightness, contrast: contrast)
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
