internal import LegibleCore

/// Scales a gray image bilinearly into the model's 1×3×H×W float input, normalised as
/// PaddleOCR does: (x / 255 − mean) / std per channel, ImageNet's mean and std in the order of
/// PaddleOCR's BGR planes. The three channels of a gray image differ only by that
/// normalisation. (Measured on colour frames: see bench/legible-detect's --compare-colour.)
///
/// Sampling follows OpenCV's `INTER_LINEAR` (source = (destination + 0.5) × scale − 0.5,
/// clamped at the edges), which PaddleOCR's resize uses. The index and weight tables are kept
/// for the last source and destination sizes, so a camera's frames allocate nothing here.
struct Resampler {
    static let mean: [Float] = [0.485, 0.456, 0.406]
    static let standardDeviation: [Float] = [0.229, 0.224, 0.225]
    /// (g / 255 - mean) / std = g × scale + offset, per channel.
    static let scale = standardDeviation.map { 1 / (255 * $0) }
    static let offset = zip(mean, standardDeviation).map { -$0 / $1 }

    private var sourceSize = (width: -1, height: -1)
    private var targetSize = (width: -1, height: -1)
    private var columns: [(Int32, Int32, Float)] = []
    private var rows: [(Int32, Int32, Float)] = []
    /// One row of the target, gray values 0…255, before normalisation.
    private var line: [Float] = []

    /// For each destination index, the two source indices and the weight of the second.
    static func table(source: Int, destination: Int) -> [(Int32, Int32, Float)] {
        let scale = Double(source) / Double(destination)
        return (0..<destination).map { index in
            let position = max(0, min(Double(source - 1), (Double(index) + 0.5) * scale - 0.5))
            let low = Int(position)
            let high = min(source - 1, low + 1)
            return (Int32(low), Int32(high), Float(position - Double(low)))
        }
    }

    private mutating func prepare(width: Int, height: Int, shape: InputShape) {
        if sourceSize != (width, height) || targetSize != (shape.width, shape.height) {
            sourceSize = (width, height)
            targetSize = (shape.width, shape.height)
            columns = Self.table(source: width, destination: shape.width)
            rows = Self.table(source: height, destination: shape.height)
            line = [Float](repeating: 0, count: shape.width)
        }
    }

    /// Writes `image` scaled to `shape` into `planes` (3 × height × width floats).
    mutating func write(_ image: GrayImage, to shape: InputShape, into planes: UnsafeMutablePointer<Float>) {
        prepare(width: image.width, height: image.height, shape: shape)
        let planeSize = shape.width * shape.height
        let (a, b) = (Self.scale, Self.offset)
        let (a0, a1, a2, b0, b1, b2) = (a[0], a[1], a[2], b[0], b[1], b[2])
        let stride = image.bytesPerRow
        image.pixels.withUnsafeBufferPointer { pixels in
            columns.withUnsafeBufferPointer { columns in
                line.withUnsafeMutableBufferPointer { line in
                    for y in 0..<shape.height {
                        let (top, bottom, wy) = rows[y]
                        let upper = pixels.baseAddress! + Int(top) * stride
                        let lower = pixels.baseAddress! + Int(bottom) * stride
                        for x in 0..<shape.width {
                            let (left, right, wx) = columns[x]
                            let p00 = Float(upper[Int(left)])
                            let p01 = Float(upper[Int(right)])
                            let p10 = Float(lower[Int(left)])
                            let p11 = Float(lower[Int(right)])
                            let upperValue = p00 + (p01 - p00) * wx
                            let lowerValue = p10 + (p11 - p10) * wx
                            line[x] = upperValue + (lowerValue - upperValue) * wy
                        }
                        let row = y * shape.width
                        let blue = planes + row
                        let green = planes + planeSize + row
                        let red = planes + 2 * planeSize + row
                        for x in 0..<shape.width {
                            let g = line[x]
                            blue[x] = g * a0 + b0
                            green[x] = g * a1 + b1
                            red[x] = g * a2 + b2
                        }
                    }
                }
            }
        }
    }

    /// Writes a BGR image (3 bytes per pixel, rows `bytesPerRow` apart) scaled to `shape`, each
    /// channel into its own plane, as PaddleOCR feeds a colour image. For measurement only: the
    /// pipeline decodes to gray.
    mutating func write(
        bgr pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int, to shape: InputShape,
        into planes: UnsafeMutablePointer<Float>
    ) {
        prepare(width: width, height: height, shape: shape)
        let planeSize = shape.width * shape.height
        for channel in 0..<3 {
            let a = 1 / (255 * Self.standardDeviation[channel])
            let b = -Self.mean[channel] / Self.standardDeviation[channel]
            let plane = planes + channel * planeSize
            for y in 0..<shape.height {
                let (top, bottom, wy) = rows[y]
                for x in 0..<shape.width {
                    let (left, right, wx) = columns[x]
                    func at(_ row: Int32, _ column: Int32) -> Float {
                        Float(pixels[Int(row) * bytesPerRow + Int(column) * 3 + channel])
                    }
                    let upper = at(top, left) + (at(top, right) - at(top, left)) * wx
                    let lower = at(bottom, left) + (at(bottom, right) - at(bottom, left)) * wx
                    plane[y * shape.width + x] = (upper + (lower - upper) * wy) * a + b
                }
            }
        }
    }
}
