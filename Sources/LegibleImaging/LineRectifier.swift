public import LegibleCore

/// A detected text line cut out of the upright image and turned horizontal, dark text on a
/// light ground, at a height Tesseract reads well; and the map back to the image.
public struct RectifiedLine: Sendable {
    public var image: GrayImage
    /// Strip pixels → upright image pixels.
    public var toImage: AffineMap
    /// Whether the strip was inverted (the line was light text on a dark ground).
    public var inverted: Bool
}

/// Cuts a line's quad out of a gray image into a horizontal strip by bilinear sampling.
///
/// The strip's x axis runs along the quad's top edge (the reading direction), its y axis down
/// the left edge; a detector's quads are rotated rectangles, so one affine map is exact. The
/// strip is scaled so the line is `targetHeight` px high (small text enlarged up to
/// `maximumEnlargement`, large text shrunk), with a `margin` of replicated border around it:
/// Tesseract's single-line mode reads a line better with some ground around the ink.
public struct LineRectifier: Sendable {
    public var targetHeight: Double
    public var maximumEnlargement: Double
    /// Border around the line, as a fraction of the target height.
    public var margin: Double

    public init(targetHeight: Double = 48, maximumEnlargement: Double = 3, margin: Double = 0.25) {
        self.targetHeight = targetHeight
        self.maximumEnlargement = maximumEnlargement
        self.margin = margin
    }

    /// The strip of `quad` in `image`; nil when the quad is degenerate.
    public func rectify(_ image: GrayImage, quad: Quad) -> RectifiedLine? {
        let origin = (x: Double(quad.topLeft.x), y: Double(quad.topLeft.y))
        let length = quad.length
        let height = quad.height
        guard length >= 2, height >= 2, image.width > 0, image.height > 0 else { return nil }
        let (ux, uy) = quad.direction
        // Down the line: perpendicular to the reading direction (y points down).
        let (vx, vy) = (-uy, ux)
        let scale = min(maximumEnlargement, targetHeight / height)
        let border = (margin * targetHeight).rounded()
        let width = Int((length * scale + 2 * border).rounded())
        let rows = Int((height * scale + 2 * border).rounded())
        guard width > 0, rows > 0, width * rows <= 16_000_000 else { return nil }
        // Strip (sx, sy) → image: origin + ((sx - border) / scale) u + ((sy - border) / scale) v.
        let step = 1 / scale
        let toImage = AffineMap(
            a: ux * step, b: vx * step, c: uy * step, d: vy * step,
            tx: origin.x - border * step * (ux + vx), ty: origin.y - border * step * (uy + vy))
        var pixels = [UInt8](repeating: 0, count: width * rows)
        image.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { strip in
                Self.sample(source, image, into: strip, width: width, rows: rows, map: toImage)
            }
        }
        var line = GrayImage(width: width, height: rows, bytesPerRow: width, pixels: pixels)
        let inverted = line.hasLightMarksOnDark()
        if inverted {
            for index in line.pixels.indices { line.pixels[index] = 255 &- line.pixels[index] }
        }
        Self.evenOutLighting(&line)
        return RectifiedLine(image: line, toImage: toImage, inverted: inverted)
    }

    /// Stretches the strip's contrast column by column between the darkest and lightest values
    /// nearby (within one strip height either way), so that one global threshold — Tesseract's
    /// default — separates ink from ground along the whole line even when the light falls off
    /// across it (a word at the dim end of a line was lost without this). Where there is no
    /// ink nearby (the range is under `minimumRange`) the strip is left as it is.
    static func evenOutLighting(_ line: inout GrayImage, minimumRange: Int = 24) {
        let (width, height) = (line.width, line.height)
        guard width > 0, height > 0 else { return }
        var columnMin = [UInt8](repeating: 255, count: width)
        var columnMax = [UInt8](repeating: 0, count: width)
        line.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let row = y * line.bytesPerRow
                for x in 0..<width {
                    let value = pixels[row + x]
                    if value < columnMin[x] { columnMin[x] = value }
                    if value > columnMax[x] { columnMax[x] = value }
                }
            }
        }
        let radius = height
        let low = slidingExtreme(columnMin, radius: radius, takeMinimum: true)
        let high = slidingExtreme(columnMax, radius: radius, takeMinimum: false)
        // One lookup table per distinct (low, high) would be cheaper; a multiply per pixel is
        // ~50 k operations for a 48 x 1000 strip, well under Tesseract's cost for it.
        line.pixels.withUnsafeMutableBufferPointer { pixels in
            for x in 0..<width {
                let lo = Int(low[x])
                let range = Int(high[x]) - lo
                guard range >= minimumRange else { continue }
                for y in 0..<height {
                    let index = y * line.bytesPerRow + x
                    pixels[index] = UInt8(min(255, max(0, (Int(pixels[index]) - lo) * 255 / range)))
                }
            }
        }
    }

    /// The minimum (or maximum) of `values` over a window of ±`radius` around each index.
    static func slidingExtreme(_ values: [UInt8], radius: Int, takeMinimum: Bool) -> [UInt8] {
        // Monotonic deque: O(n) for any radius.
        var result = [UInt8](repeating: 0, count: values.count)
        var deque: [Int] = []
        var head = 0
        var next = 0
        func better(_ a: UInt8, _ b: UInt8) -> Bool { takeMinimum ? a <= b : a >= b }
        for index in values.indices {
            while next < values.count, next <= index + radius {
                while deque.count > head, better(values[next], values[deque[deque.count - 1]]) { deque.removeLast() }
                deque.append(next)
                next += 1
            }
            while deque[head] < index - radius { head += 1 }
            result[index] = values[deque[head]]
        }
        return result
    }

    /// Bilinear samples of the source at each strip pixel's centre, edges replicated.
    private static func sample(
        _ source: UnsafeBufferPointer<UInt8>, _ image: GrayImage, into strip: UnsafeMutableBufferPointer<UInt8>,
        width: Int, rows: Int, map: AffineMap
    ) {
        let maxX = Double(image.width - 1)
        let maxY = Double(image.height - 1)
        let stride = image.bytesPerRow
        for sy in 0..<rows {
            // Pixel centres: +0.5 in the strip, -0.5 back to the source's sample grid.
            let fy = Double(sy) + 0.5
            var x = map.a * 0.5 + map.b * fy + map.tx - 0.5
            var y = map.c * 0.5 + map.d * fy + map.ty - 0.5
            let row = sy * width
            for sx in 0..<width {
                let cx = min(max(x, 0), maxX)
                let cy = min(max(y, 0), maxY)
                let x0 = Int(cx)
                let y0 = Int(cy)
                let x1 = min(x0 + 1, image.width - 1)
                let y1 = min(y0 + 1, image.height - 1)
                let wx = cx - Double(x0)
                let wy = cy - Double(y0)
                let top = Double(source[y0 * stride + x0]) * (1 - wx) + Double(source[y0 * stride + x1]) * wx
                let bottom = Double(source[y1 * stride + x0]) * (1 - wx) + Double(source[y1 * stride + x1]) * wx
                strip[row + sx] = UInt8(min(255, max(0, (top * (1 - wy) + bottom * wy).rounded())))
                x += map.a
                y += map.c
            }
        }
    }
}
