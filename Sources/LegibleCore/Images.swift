/// How a frame's stored pixels must be transformed to be upright: the EXIF values of tag
/// 0x0112, named as `UIImage.Orientation` names them.
public enum Orientation: Int, Sendable, Hashable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8
}

/// How a frame's bytes are stored (DESIGN.md's `Encoding`).
public enum ImageEncoding: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case jpeg = 1
    case png = 2
    case gray8 = 3
    case rgba8 = 4
    case bgra8 = 5
    case nv12 = 6
    case i420 = 7

    /// Raw buffers carry their geometry in the message; compressed ones in their own header.
    public var isRaw: Bool {
        switch self {
        case .jpeg, .png: false
        case .gray8, .rgba8, .bgra8, .nv12, .i420: true
        }
    }

    public var description: String {
        switch self {
        case .jpeg: "jpeg"
        case .png: "png"
        case .gray8: "gray8"
        case .rgba8: "rgba8"
        case .bgra8: "bgra8"
        case .nv12: "nv12"
        case .i420: "i420"
        }
    }
}

/// A frame's image as the client sent it, not yet decoded.
///
/// A frame that is dropped for a newer one never gets past this form: decoding happens on the
/// engine thread, just before recognition.
public struct EncodedImage: Sendable {
    public var encoding: ImageEncoding
    public var data: [UInt8]
    /// Raw encodings only; 0 otherwise.
    public var width: Int
    public var height: Int
    /// Bytes per row of the first plane; 0 means tightly packed.
    public var stride: Int

    public init(encoding: ImageEncoding, data: [UInt8], width: Int = 0, height: Int = 0, stride: Int = 0) {
        self.encoding = encoding
        self.data = data
        self.width = width
        self.height = height
        self.stride = stride
    }
}

/// An 8-bit gray image, rows top to bottom, `bytesPerRow` apart.
public struct GrayImage: Sendable {
    public var width: Int
    public var height: Int
    public var bytesPerRow: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, bytesPerRow: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && bytesPerRow >= width)
        precondition(pixels.count >= height * bytesPerRow)
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> UInt8 { pixels[y * bytesPerRow + x] }
}

extension GrayImage {
    /// Whether the image is mostly dark with lighter marks (light text on a dark ground): its
    /// median gray is below the middle of its 5th and 95th percentiles, from every `step`-th
    /// pixel of every `step`-th row. Right on every generated frame, dark-on-light and
    /// light-on-dark, dim and uneven, and on detected line strips (most of a line is ground).
    public func hasLightMarksOnDark(step: Int = 1) -> Bool {
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        pixels.withUnsafeBufferPointer { pixels in
            var y = 0
            while y < height {
                var x = 0
                let row = y * bytesPerRow
                while x < width {
                    histogram[Int(pixels[row + x])] += 1
                    count += 1
                    x += step
                }
                y += step
            }
        }
        guard count > 0 else { return false }
        func percentile(_ p: Double) -> Int {
            let target = Int(Double(count) * p)
            var seen = 0
            for (level, n) in histogram.enumerated() {
                seen += n
                if seen > target { return level }
            }
            return 255
        }
        return Double(percentile(0.5)) < Double(percentile(0.05) + percentile(0.95)) / 2
    }

    /// The box of the ink (pixels darker than the middle of the values) within `columns` of
    /// dark-on-light text, all rows: the first and one past the last column and row holding
    /// some; nil when that range holds no contrast (under `minimumRange` gray levels). Line
    /// recognizers place characters only roughly along a line; this trims a box to its marks.
    public func inkBox(columns: Range<Int>, minimumRange: Int = 24) -> Rect? {
        let x0 = max(0, min(width - 1, columns.lowerBound))
        let x1 = max(x0 + 1, min(width, columns.upperBound))
        var low = UInt8.max
        var high = UInt8.min
        for y in 0..<height {
            for x in x0..<x1 {
                let value = pixels[y * bytesPerRow + x]
                low = min(low, value)
                high = max(high, value)
            }
        }
        guard Int(high) - Int(low) >= minimumRange else { return nil }
        let threshold = UInt8((Int(low) + Int(high)) / 2)
        var (left, top, right, bottom) = (x1, height, x0, 0)
        for y in 0..<height {
            let row = y * bytesPerRow
            for x in x0..<x1 where pixels[row + x] < threshold {
                left = min(left, x)
                right = max(right, x + 1)
                top = min(top, y)
                bottom = max(bottom, y + 1)
            }
        }
        guard right > left else { return nil }
        return Rect(x: Int32(left), y: Int32(top), width: Int32(right - left), height: Int32(bottom - top))
    }
}
