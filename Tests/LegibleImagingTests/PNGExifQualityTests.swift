import Foundation
import LegibleCore
import LegibleImaging
import Testing

private func fixture(_ name: String) throws -> [UInt8] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name)
    return [UInt8](try Data(contentsOf: url))
}

private func failure(_ body: () throws(LegibleError) -> Void) -> LegibleError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

// MARK: PNG (fixtures from scripts/make-fixtures.py: gray(x, y) = (7x + 31y) % 256, 13 x 7)

@Suite struct PNGReaderTests {
    let pattern: [UInt8] = (0..<7).flatMap { y in (0..<13).map { x in UInt8((7 * x + 31 * y) % 256) } }

    @Test(arguments: [
        "pattern-gray8.png", "pattern-rgb.png", "pattern-rgba.png", "pattern-gray16.png", "pattern-palette.png",
    ])
    func everyPixelFormatReadsAsTheSameGray(name: String) throws {
        var buffer: [UInt8] = []
        let size = try PNGReader.decodeGray(try fixture(name), maxPixels: 1000, maxSide: 100, into: &buffer)
        #expect(size.width == 13 && size.height == 7)
        let worst = zip(buffer.prefix(13 * 7), pattern).map { abs(Int($0) - Int($1)) }.max() ?? 255
        // RGB → luma rounds; everything else is exact.
        #expect(worst <= 1, "\(name): off by \(worst)")
    }

    @Test func oneBitPNGIsBlackAndWhite() throws {
        var buffer: [UInt8] = []
        _ = try PNGReader.decodeGray(try fixture("checker-1bit.png"), maxPixels: 1000, maxSide: 100, into: &buffer)
        #expect(buffer[0] == 0 && buffer[1] == 255 && buffer[13] == 255)
    }

    @Test func bufferIsReusedNotShrunk() throws {
        var buffer = [UInt8](repeating: 7, count: 5000)
        _ = try PNGReader.decodeGray(try fixture("pattern-gray8.png"), maxPixels: 1000, maxSide: 100, into: &buffer)
        #expect(buffer.count == 5000)
        #expect(Array(buffer.prefix(91)) == pattern && buffer[91] == 7)
    }

    /// The IHDR claims `width` x `height`; its CRC is not rechecked by the header read.
    func claiming(width: UInt32, height: UInt32) throws -> [UInt8] {
        var png = try fixture("pattern-gray8.png")
        for (offset, value) in [(16, width), (20, height)] {
            for i in 0..<4 { png[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
        }
        return png
    }

    @Test func headerOverTheLimitsIsResourceExhaustedBeforeDecoding() throws {
        var buffer: [UInt8] = []
        let huge = failure { () throws(LegibleError) in
            _ = try PNGReader.decodeGray(
                try! claiming(width: 20000, height: 20000), maxPixels: 40_000_000, maxSide: 16384, into: &buffer)
        }
        #expect(huge?.code == .resourceExhausted)
        let wide = failure { () throws(LegibleError) in
            _ = try PNGReader.decodeGray(
                try! claiming(width: 17000, height: 2), maxPixels: 40_000_000, maxSide: 16384, into: &buffer)
        }
        #expect(wide?.code == .resourceExhausted && wide?.message.contains("16384") == true)
        #expect(buffer.isEmpty, "nothing was allocated")
    }

    @Test func truncatedOrGarbageIsInvalidArgument() throws {
        let whole = try fixture("pattern-rgb.png")
        var buffer: [UInt8] = []
        for data in [
            Array(whole.prefix(whole.count - 20)), Array(whole.prefix(30)), [UInt8](repeating: 0x42, count: 64),
        ] {
            let error = failure { () throws(LegibleError) in
                _ = try PNGReader.decodeGray(data, maxPixels: 1000, maxSide: 100, into: &buffer)
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.hasPrefix("PNG") == true)
        }
    }

    /// libpng's reason reaches the error (Sources/CPNGMessages), where its default error
    /// function would have printed it to stderr.
    @Test func aDamagedPNGSaysWhatLibpngFound() throws {
        var data = try fixture("pattern-gray8.png")
        let idat = try #require((0..<(data.count - 4)).first { Array(data[$0..<($0 + 4)]) == Array("IDAT".utf8) })
        data[idat + 6] ^= 0xFF
        var buffer: [UInt8] = []
        let error = failure { () throws(LegibleError) in
            _ = try PNGReader.decodeGray(data, maxPixels: 1000, maxSide: 100, into: &buffer)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("libpng: ") == true, "\(String(describing: error))")
    }
}

// MARK: EXIF

@Suite struct ExifOrientationTests {
    /// An APP1 Exif segment holding IFD0 with one entry: tag 0x0112, SHORT, 1 component.
    func app1(orientation value: UInt16, bigEndian: Bool) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) }
            return bigEndian ? bytes.reversed() : bytes
        }
        let tiff =
            (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8) + u16(1)
            + u16(0x0112) + u16(3) + u32(1) + u16(value) + u16(0) + u32(0)
        let body = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
        let length = UInt16(body.count + 2)
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }

    func jpeg(with segment: [UInt8]) throws -> [UInt8] {
        let plain = try fixture("label-640x480.jpg")
        return Array(plain.prefix(2)) + segment + Array(plain.dropFirst(2))
    }

    @Test(arguments: Orientation.allCases)
    func readsEveryValueInBothByteOrders(orientation: Orientation) throws {
        for bigEndian in [false, true] {
            let data = try jpeg(with: app1(orientation: UInt16(orientation.rawValue), bigEndian: bigEndian))
            #expect(ExifOrientation.read(fromJPEG: data) == orientation, "big-endian: \(bigEndian)")
        }
    }

    @Test func noTagOrABadValueIsNil() throws {
        #expect(ExifOrientation.read(fromJPEG: try fixture("label-640x480.jpg")) == nil)
        #expect(ExifOrientation.read(fromJPEG: try jpeg(with: app1(orientation: 0, bigEndian: false))) == nil)
        #expect(ExifOrientation.read(fromJPEG: try jpeg(with: app1(orientation: 9, bigEndian: true))) == nil)
        #expect(ExifOrientation.read(fromJPEG: [0xFF, 0xD8, 0xFF]) == nil)
        #expect(ExifOrientation.read(fromJPEG: try fixture("not-a-jpeg.jpg")) == nil)
    }

    @Test func truncatedSegmentIsNilWithoutCrashing() throws {
        let whole = try jpeg(with: app1(orientation: 6, bigEndian: false))
        for cut in [8, 12, 20, 30] {
            _ = ExifOrientation.read(fromJPEG: Array(whole.prefix(cut)))
        }
    }

    @Test func exifTagIsAppliedWhenTheFrameDoesNotSay() throws {
        let imager = try FrameImager()
        let data = try jpeg(with: app1(orientation: 6, bigEndian: true))
        let unspecified = try imager.load(EncodedImage(encoding: .jpeg, data: data))
        #expect(unspecified.orientation == .right && unspecified.orientationSource == .exif)
        #expect(unspecified.uprightFullSize(unspecified.orientation) == (480, 640))
        let told = try imager.load(EncodedImage(encoding: .jpeg, data: data), orientation: .up)
        #expect(told.orientation == .up && told.orientationSource == .client)
        let plain = try imager.load(EncodedImage(encoding: .jpeg, data: try fixture("label-640x480.jpg")))
        #expect(plain.orientation == .up && plain.orientationSource == .default)
    }
}

// MARK: Quality measures

@Suite struct ImageQualityTests {
    func measure(_ pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int? = nil) -> ImageQuality {
        pixels.withUnsafeBufferPointer {
            ImageQuality.measure($0, width: width, height: height, bytesPerRow: bytesPerRow ?? width)
        }
    }

    @Test func constantImageHasNoDetailAndNoRange() {
        let q = measure([UInt8](repeating: 90, count: 64 * 48), width: 64, height: 48)
        #expect(q == ImageQuality(sharpness: 0, brightness: 90, contrast: 0))
    }

    @Test func blurLowersSharpnessButDimmingDoesNot() {
        let size = 64
        let checker = (0..<size).flatMap { y in (0..<size).map { x in UInt8((x / 4 + y / 4) % 2 == 0 ? 40 : 220) } }
        // A 3x3 box blur of the same picture.
        var blurred = checker
        for y in 1..<(size - 1) {
            for x in 1..<(size - 1) {
                var sum = 0
                for dy in -1...1 { for dx in -1...1 { sum += Int(checker[(y + dy) * size + x + dx]) } }
                blurred[y * size + x] = UInt8(sum / 9)
            }
        }
        let dim = checker.map { $0 / 4 }
        let sharp = measure(checker, width: size, height: size)
        #expect(measure(blurred, width: size, height: size).sharpness < sharp.sharpness / 2)
        let dimmed = measure(dim, width: size, height: size)
        #expect(abs(dimmed.sharpness - sharp.sharpness) < sharp.sharpness * 0.05)
        #expect(dimmed.brightness < sharp.brightness / 3)
    }

    /// The Laplacian is taken on every other row (half the cost); on a camera frame that must
    /// read as every row would, or the blur hint's threshold would mean something else.
    @Test func everyOtherRowMeasuresTheSharpnessOfEveryRow() throws {
        let frame = try FrameImager().decode(
            EncodedImage(encoding: .jpeg, data: try fixture("camera-720p.jpg")), maxPixels: 10_000_000)
        let measured = measure(frame.pixels, width: frame.width, height: frame.height, bytesPerRow: frame.bytesPerRow)
        var sum = 0.0
        var sumOfSquares = 0.0
        for y in 1..<(frame.height - 1) {
            for x in 1..<(frame.width - 1) {
                let laplacian =
                    Double(frame[x, y - 1]) + Double(frame[x, y + 1]) + Double(frame[x - 1, y])
                    + Double(frame[x + 1, y]) - 4 * Double(frame[x, y])
                sum += laplacian
                sumOfSquares += laplacian * laplacian
            }
        }
        let n = Double((frame.width - 2) * (frame.height - 2))
        let everyRow =
            (sumOfSquares / n - (sum / n) * (sum / n)) * 10_000 / Double(measured.contrast * measured.contrast)
        #expect(measured.sharpness > 0)
        #expect(
            abs(Double(measured.sharpness) - everyRow) < everyRow * 0.02, "\(measured.sharpness) against \(everyRow)")
    }

    @Test func contrastIsThePercentileSpread() {
        let halves = [UInt8](repeating: 100, count: 500) + [UInt8](repeating: 140, count: 500)
        #expect(measure(halves, width: 50, height: 20).contrast == 40)
    }

    @Test func paddingIsNeverRead() {
        // 4x3 of 50 with rows 6 bytes apart; the padding is 255 and must not count.
        var rows: [UInt8] = []
        for _ in 0..<3 { rows += [50, 50, 50, 50, 255, 255] }
        #expect(
            measure(rows, width: 4, height: 3, bytesPerRow: 6)
                == ImageQuality(sharpness: 0, brightness: 50, contrast: 0))
    }

    @Test func thresholdsFireTheirHints() {
        let judge = QualityThresholds()
        let clean = ImageQuality(sharpness: 80, brightness: 205, contrast: 173)
        #expect(judge.judge(clean, medianTextHeight: 29, script: .latin).hints == [])
        #expect(judge.judge(clean, medianTextHeight: 0, script: .latin).hints == [], "no words, no size advice")
        #expect(judge.judge(clean, medianTextHeight: 20, script: .japanese).hints == [.textTooSmall])
        let bad = ImageQuality(sharpness: 2, brightness: 25, contrast: 18)
        #expect(
            judge.judge(bad, medianTextHeight: 12, script: .latin).hints == [
                .textTooSmall, .blurry, .tooDark, .lowContrast,
            ])
    }
}
