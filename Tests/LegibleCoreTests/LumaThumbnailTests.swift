import LegibleCore
import Testing

/// A `width` x `height` image from `gray(x, y)`, rows `bytesPerRow` apart with `padding` bytes
/// after each row.
private func image(_ width: Int, _ height: Int, padding: Int = 0, padValue: UInt8 = 255, _ gray: (Int, Int) -> UInt8)
    -> GrayImage
{
    let bytesPerRow = width + padding
    var pixels = [UInt8](repeating: padValue, count: bytesPerRow * height)
    for y in 0..<height {
        for x in 0..<width { pixels[y * bytesPerRow + x] = gray(x, y) }
    }
    return GrayImage(width: width, height: height, bytesPerRow: bytesPerRow, pixels: pixels)
}

@Suite("Luma thumbnail")
struct LumaThumbnailTests {
    @Test func uniformImageGivesUniformCells() {
        let thumbnail = LumaThumbnail(image(1280, 720) { _, _ in 137 })
        #expect(thumbnail.cells.count == 32 * 18)
        #expect(thumbnail.cells.allSatisfy { $0 == 137 })
        #expect(thumbnail.mean == 137)
        #expect(thumbnail.difference(thumbnail) == 0)
    }

    @Test func cellsAreAreaAverages() {
        // 64×36: every cell is a 2×2 block; its pixels are 10, 20, 30, 40 plus the cell number.
        let thumbnail = LumaThumbnail(
            image(64, 36) { x, y in UInt8((x / 2 + 32 * (y / 2)) % 100 + 10 * (1 + x % 2 + 2 * (y % 2))) })
        for index in thumbnail.cells.indices {
            #expect(thumbnail.cells[index] == Float(index % 100) + 25, "cell \(index)")
        }
    }

    @Test func rowPaddingIsNeverRead() {
        let gray: (Int, Int) -> UInt8 = { x, y in UInt8((x * 7 + y * 3) % 256) }
        let tight = LumaThumbnail(image(333, 201, gray))
        let padded = LumaThumbnail(image(333, 201, padding: 35, padValue: 255, gray))
        #expect(tight == padded)
    }

    @Test func sizeAndAspectDoNotMatterOnlyThePicture() {
        // The same vertical gradient at 1280×720 and 640×480 (stretched into the same cells).
        let wide = LumaThumbnail(image(1280, 720) { _, y in UInt8(y * 255 / 719) })
        let narrow = LumaThumbnail(image(640, 480) { _, y in UInt8(y * 255 / 479) })
        #expect(wide.difference(narrow) < 0.5)
        // Upside down is another picture.
        let flipped = LumaThumbnail(image(640, 480) { _, y in UInt8(255 - y * 255 / 479) })
        #expect(wide.difference(flipped) > 50)
    }

    @Test func tinyAndEmptyImages() {
        #expect(LumaThumbnail(image(1, 1) { _, _ in 90 }).cells.allSatisfy { $0 == 90 })
        let small = LumaThumbnail(image(2, 1) { x, _ in x == 0 ? 0 : 200 })
        #expect(small.cells[0] == 0 && small.cells[31] == 200 && small.cells[32 * 17 + 31] == 200)
        let empty = LumaThumbnail(GrayImage(width: 0, height: 0, bytesPerRow: 0, pixels: []))
        #expect(empty.cells.allSatisfy { $0 == 0 })
    }

    /// A label-like thumbnail: a bright page, darker text cells.
    private let page = LumaThumbnail(cells: (0..<(32 * 18)).map { $0 % 7 == 0 ? 90 : 200 })

    private func exposed(_ thumbnail: LumaThumbnail, _ gain: Float) -> LumaThumbnail {
        LumaThumbnail(cells: thumbnail.cells.map { min(255, $0 * gain) })
    }

    @Test func exposureChangesAreMatched() {
        for gain: Float in [0.9, 1.1, 1.2] {
            #expect(page.difference(exposed(page, gain)) < 0.01, "gain \(gain)")
            #expect(page.rawDifference(exposed(page, gain)) > 9, "gain \(gain)")
        }
    }

    @Test func clippedHighlightsDoNotThrowTheGainOff() {
        // The page at 240 clips at 255 under +10 %; the text cells (100 → 110) still carry the gain.
        let bright = LumaThumbnail(cells: (0..<(32 * 18)).map { $0 % 7 == 0 ? 100 : 240 })
        #expect(bright.difference(exposed(bright, 1.1)) < 0.01)
        #expect(exposed(bright, 1.1).difference(bright) < 0.01)
    }

    @Test func lightingChangesBeyondTheLimitCount() {
        // ×1.5 (nothing clips) is matched up to ×1.25: what remains is 0.25 of the darker picture.
        let dim = LumaThumbnail(cells: page.cells.map { $0 * 0.7 })
        let brighter = exposed(dim, 1.5)
        #expect(abs(dim.difference(brighter) - 0.25 * dim.mean) < 0.01)
        #expect(dim.difference(brighter) > 30)
    }

    @Test func differenceIsSymmetric() {
        let other = LumaThumbnail(cells: (0..<(32 * 18)).map { Float(($0 * 37) % 251) })
        #expect(page.difference(other) == other.difference(page))
        #expect(page.difference(other) > 10)
    }
}
