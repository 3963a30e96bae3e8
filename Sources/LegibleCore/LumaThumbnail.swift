/// A 32×18 area-averaged copy of a frame's luma: cheap enough to compute for every frame, and
/// what `scene_difference` and `motion` are measured on.
///
/// Every thumbnail is 32×18 whatever the frame's size or aspect ratio: each cell is the mean of
/// the block of source pixels that falls into it (a 1280×720 frame gives 40×40 blocks, a 640×480
/// frame 20×26 ones). Stretching instead of aspect-fitting keeps every pixel in some
/// cell and makes any two thumbnails comparable cell by cell; a session whose frames change
/// size or orientation gets a large difference, which is right: the picture changed. Averaging
/// whole blocks (not sampling) is what makes the measure blind to sensor noise: a 40×40 block
/// divides the noise's σ by 40, so σ = 4 gray levels of fresh noise per frame moves a cell by
/// ~0.1. The cells are kept as `Float` so that this small shift is not rounded up to a level.
public struct LumaThumbnail: Sendable, Hashable {
    /// Cells across; the protocol's `scene_difference` is defined on 32×18.
    public static let width = 32
    /// Cells down.
    public static let height = 18

    /// Exposure changes within this factor are compensated before differencing (see
    /// `difference(_:)`); a larger change counts, as far as it goes beyond it.
    ///
    /// Auto-exposure hunts by a few to ~10 % around its target between frames; the calibration
    /// (SceneChangeCalibrationTests, ±10 % flicker) needs 1.1. 1.25 leaves room for a camera that
    /// steps coarser, while light switched on or off (far more than 25 %) still reads as a change:
    /// text too dark to read before may be legible now.
    public static let maxExposureGain: Float = 1.25

    /// Mean gray level of each cell, 0…255, row by row.
    public let cells: [Float]
    /// Mean of `cells`: the frame's mean gray level.
    public let mean: Float

    /// Cells given directly (tests; `cells.count` must be 32×18).
    public init(cells: [Float]) {
        precondition(cells.count == Self.width * Self.height, "a thumbnail has 32×18 cells")
        self.cells = cells
        self.mean = cells.reduce(0, +) / Float(cells.count)
    }

    /// The thumbnail of `image` (its `bytesPerRow` padding is never read). An image without
    /// pixels gives an all-black thumbnail; one smaller than 32×18 repeats its pixels.
    ///
    /// One pass over the image, integer sums: 0.13 ms for
    /// 1280×720 in a release build (0.4 % of a 30 fps frame interval); `difference` is
    /// ~2 µs. The calibration test prints the figure of the build it runs in.
    public init(_ image: GrayImage) {
        let width = image.width
        let height = image.height
        var sums = [UInt32](repeating: 0, count: Self.width * Self.height)
        var counts = [UInt32](repeating: 1, count: Self.width * Self.height)
        if width > 0, height > 0 {
            // Cell cx covers columns columns[cx]; rows likewise. `start` is below the image's
            // side for every cell, so a side shorter than the cells still gives each one pixel.
            let columns = (0..<Self.width).map { Self.span($0, cells: Self.width, pixels: width) }
            let rows = (0..<Self.height).map { Self.span($0, cells: Self.height, pixels: height) }
            image.pixels.withUnsafeBufferPointer { pixels in
                sums.withUnsafeMutableBufferPointer { sums in
                    for cy in 0..<Self.height {
                        let cellRow = cy * Self.width
                        for y in rows[cy] {
                            let row = pixels.baseAddress! + y * image.bytesPerRow
                            for cx in 0..<Self.width {
                                var sum: UInt32 = 0
                                for x in columns[cx] { sum &+= UInt32(row[x]) }
                                sums[cellRow + cx] &+= sum
                            }
                        }
                    }
                }
            }
            for cy in 0..<Self.height {
                for cx in 0..<Self.width { counts[cy * Self.width + cx] = UInt32(rows[cy].count * columns[cx].count) }
            }
        }
        self.init(cells: zip(sums, counts).map { Float($0) / Float($1) })
    }

    /// The pixels of cell `index` when `pixels` are split into `cells` even parts; at least one.
    private static func span(_ index: Int, cells: Int, pixels: Int) -> Range<Int> {
        let start = index * pixels / cells
        return start..<max(start + 1, (index + 1) * pixels / cells)
    }

    /// Mean absolute difference of the cells, 0…255, after matching exposure: 0 means the same
    /// picture.
    ///
    /// Exposure and gain act on the sensor's light multiplicatively, and a gamma curve keeps a
    /// gain a gain, so a flickering auto-exposure multiplies every cell by nearly the same
    /// factor, except where the brighter frame clipped at 255. So the darker thumbnail is
    /// scaled by the ratio of the two means taken over the cells the brighter one did not clip
    /// (that ratio clamped to `maxExposureGain`), clipped at 255 as the sensor would, and then
    /// compared. Subtracting the means instead would leave `gain − 1` times each cell's distance
    /// from the mean, and matching the plain means would let a clipped white page drag the
    /// gain off: on the generated sequences ±10 % flicker then measured up to 0.8 and 3.6
    /// respectively, against 0.35 here (SceneChangeCalibrationTests prints all three). The clamp
    /// keeps a real lighting change visible, and a dark frame's noise from being amplified.
    public func difference(_ other: LumaThumbnail) -> Float {
        var sum: Float = 0
        var otherSum: Float = 0
        for index in cells.indices where max(cells[index], other.cells[index]) < Self.clipLevel {
            sum += cells[index]
            otherSum += other.cells[index]
        }
        // Whichever is darker over the unclipped cells is scaled up; the same either way round.
        let darkerIsSelf = sum <= otherSum
        let (dark, bright) = darkerIsSelf ? (self, other) : (other, self)
        let ratio = darkerIsSelf ? otherSum / max(sum, 1) : sum / max(otherSum, 1)
        let gain = min(Self.maxExposureGain, ratio)
        var total: Float = 0
        for index in cells.indices {
            total += abs(min(255, dark.cells[index] * gain) - bright.cells[index])
        }
        return total / Float(cells.count)
    }

    /// A cell this bright may hold clipped pixels; it does not count toward the exposure gain.
    static let clipLevel: Float = 250

    /// Mean absolute difference of the raw cells, without exposure matching (calibration).
    public func rawDifference(_ other: LumaThumbnail) -> Float {
        var total: Float = 0
        for index in cells.indices { total += abs(cells[index] - other.cells[index]) }
        return total / Float(cells.count)
    }
}

/// Coded with its cells as raw bytes in an attachment when the coder carries `ByteAttachments`
/// (an engine worker's messages: 576 floats as JSON numbers cost more than the rest of a frame's
/// message).
extension LumaThumbnail: Codable {
    private enum CodingKeys: String, CodingKey { case cells, attachment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let cells: [Float]
        if let index = try container.decodeIfPresent(Int.self, forKey: .attachment) {
            let bytes = try ByteAttachments.from(decoder).part(index, codingPath: container.codingPath)
            cells = bytes.withUnsafeBytes { raw in
                (0..<raw.count / 4).map { index in
                    Float(
                        bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
                }
            }
        } else {
            cells = try container.decode([Float].self, forKey: .cells)
        }
        guard cells.count == Self.width * Self.height else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: "a thumbnail has 32×18 cells"))
        }
        self.init(cells: cells)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let attachments = encoder.userInfo[ByteAttachments.key] as? ByteAttachments {
            var bytes = [UInt8]()
            bytes.reserveCapacity(4 * cells.count)
            for cell in cells { withUnsafeBytes(of: cell.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
            try container.encode(attachments.append(bytes), forKey: .attachment)
        } else {
            try container.encode(cells, forKey: .cells)
        }
    }
}
