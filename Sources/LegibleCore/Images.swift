/// How a frame's stored pixels must be transformed to be upright: the EXIF values of tag
/// 0x0112, named as `UIImage.Orientation` names them.
public enum Orientation: Int, Sendable, Hashable, CaseIterable, Codable {
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
public enum ImageEncoding: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible, Codable {
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

/// Coded with its pixels as an attachment when the coder carries `ByteAttachments` (an engine
/// worker's messages, where a megabyte of pixels as a list of numbers would cost milliseconds).
extension GrayImage: Codable {
    private enum CodingKeys: String, CodingKey { case width, height, bytesPerRow, pixels, attachment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let width = try container.decode(Int.self, forKey: .width)
        let height = try container.decode(Int.self, forKey: .height)
        let bytesPerRow = try container.decode(Int.self, forKey: .bytesPerRow)
        let pixels: [UInt8]
        if let index = try container.decodeIfPresent(Int.self, forKey: .attachment) {
            pixels = try ByteAttachments.from(decoder).part(index, codingPath: container.codingPath)
        } else {
            pixels = try container.decode([UInt8].self, forKey: .pixels)
        }
        guard width >= 0, height >= 0, bytesPerRow >= width, pixels.count >= height * bytesPerRow else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: "a gray image's pixels do not fit its size"))
        }
        self.init(width: width, height: height, bytesPerRow: bytesPerRow, pixels: pixels)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(bytesPerRow, forKey: .bytesPerRow)
        if let attachments = encoder.userInfo[ByteAttachments.key] as? ByteAttachments {
            try container.encode(attachments.append(pixels), forKey: .attachment)
        } else {
            try container.encode(pixels, forKey: .pixels)
        }
    }
}

/// Byte arrays carried beside a coded message rather than inside it: an encoder or decoder
/// given one under `ByteAttachments.key` in its `userInfo` lets large values (`GrayImage`'s
/// pixels) put their bytes here and code only their index.
public final class ByteAttachments: @unchecked Sendable {
    // Used by one coder at a time, on one thread.
    public private(set) var parts: [[UInt8]]

    public static let key = CodingUserInfoKey(rawValue: "legible.byteAttachments")!

    public init(_ parts: [[UInt8]] = []) { self.parts = parts }

    /// Keeps `bytes`; returns the index to code in its place.
    public func append(_ bytes: [UInt8]) -> Int {
        parts.append(bytes)
        return parts.count - 1
    }

    func part(_ index: Int, codingPath: [any CodingKey]) throws -> [UInt8] {
        guard parts.indices.contains(index) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "no attachment \(index)"))
        }
        return parts[index]
    }

    static func from(_ decoder: any Decoder) throws -> ByteAttachments {
        guard let attachments = decoder.userInfo[key] as? ByteAttachments else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "an attachment without its attachments"))
        }
        return attachments
    }
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
