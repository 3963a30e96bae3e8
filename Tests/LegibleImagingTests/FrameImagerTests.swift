import Foundation
import LegibleCore
import LegibleImaging
import Testing

/// Tests/Fixtures, found from this file's path (no SwiftPM resources).
private func fixture(_ name: String) throws -> [UInt8] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name)
    return [UInt8](try Data(contentsOf: url))
}

private func jpeg(_ name: String) throws -> EncodedImage {
    EncodedImage(encoding: .jpeg, data: try fixture(name))
}

/// Runs `body` and returns the LegibleError it threw, or nil.
private func error(_ body: () throws(LegibleError) -> GrayImage) -> LegibleError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

private let noCap = 100_000_000

@Test func decodesCameraJPEGToGray() throws {
    let image = try FrameImager().decode(jpeg("camera-720p.jpg"), maxPixels: noCap)
    #expect(image.width == 1280)
    #expect(image.height == 720)
    #expect(image.bytesPerRow == 1280)
    #expect(image.pixels.count == 1280 * 720)
    // Background: the light gradient, away from any text.
    #expect(image[10, 10] > 180)
    #expect(image[1200, 700] > 170)
    // "Fresh" is drawn in the box (120, 99, 149, 44): its ink is dark.
    var darkest: UInt8 = 255
    for y in 99..<143 {
        for x in 120..<269 { darkest = min(darkest, image[x, y]) }
    }
    #expect(darkest < 80)
}

@Test func blankJPEGIsUniform() throws {
    let image = try FrameImager().decode(jpeg("blank-320x240.jpg"), maxPixels: noCap)
    #expect(image.width == 320 && image.height == 240)
    #expect(image.pixels.allSatisfy { (195...205).contains($0) })
}

@Test func garbageIsInvalidArgumentWithTheDecodersReason() throws {
    let decoder = try FrameImager()
    let failure = error { () throws(LegibleError) in try decoder.decode(try! jpeg("not-a-jpeg.jpg"), maxPixels: noCap) }
    #expect(failure?.code == .invalidArgument)
    #expect(failure?.message.contains("Not a JPEG file") == true, "\(String(describing: failure))")
}

@Test func truncatedJPEGFailsWithTheDecodersReason() throws {
    // Cut mid-scan: libjpeg warns "Premature end of JPEG file"; with TJFLAG_STOPONWARNING that
    // fails the frame instead of answering a half-grey image that reads as nothing.
    let whole = try fixture("camera-720p.jpg")
    let cut = EncodedImage(encoding: .jpeg, data: Array(whole[..<(whole.count * 6 / 10)]))
    let failure = error { () throws(LegibleError) in try FrameImager().decode(cut, maxPixels: noCap) }
    #expect(failure?.code == .invalidArgument)
    #expect(failure?.message == "JPEG does not decode: Premature end of JPEG file")
}

@Test func decoderIsReusableAfterAFailure() throws {
    let decoder = try FrameImager()
    #expect(
        error { () throws(LegibleError) in try decoder.decode(try! jpeg("not-a-jpeg.jpg"), maxPixels: noCap) } != nil)
    let image = try decoder.decode(jpeg("label-640x480.jpg"), maxPixels: noCap)
    #expect(image.width == 640 && image.height == 480)
}

@Test func decoderIsReusableAfterAHeaderCutShort() throws {
    // A JPEG whose header stops before its SOS marker leaves libjpeg mid-header; without a
    // fresh decompressor the next, good JPEG read as "a size of 0x0" (found by legible-load:
    // one bad frame from any client failed the next frame on that engine).
    let decoder = try FrameImager()
    let whole = try fixture("label-640x480.jpg")
    let cut = EncodedImage(encoding: .jpeg, data: Array(whole[..<300]))
    let failure = error { () throws(LegibleError) in try decoder.decode(cut, maxPixels: noCap) }
    #expect(failure?.message.contains("missing SOS marker") == true, "\(String(describing: failure))")
    let image = try decoder.decode(jpeg("label-640x480.jpg"), maxPixels: noCap)
    #expect(image.width == 640 && image.height == 480)
}

@Test(arguments: [ImageEncoding.jpeg, .gray8, .png])
func emptyDataIsInvalidArgument(encoding: ImageEncoding) throws {
    let decoder = try FrameImager()
    let failure = error { () throws(LegibleError) in
        try decoder.decode(EncodedImage(encoding: encoding, data: [], width: 4, height: 4), maxPixels: noCap)
    }
    #expect(failure?.code == .invalidArgument)
    #expect(failure?.message == "empty image: the frame has no data")
}

@Test func shortGray8BufferNamesTheNumbers() throws {
    let decoder = try FrameImager()
    let short = EncodedImage(encoding: .gray8, data: [UInt8](repeating: 0, count: 1000), width: 640, height: 480)
    let failure = error { () throws(LegibleError) in try decoder.decode(short, maxPixels: noCap) }
    #expect(failure?.code == .invalidArgument)
    #expect(failure?.message == "GRAY8 buffer has 1000 bytes; 640x480 with stride 640 needs 307200")
}

@Test func gray8WithStrideKeepsTheRightPixels() throws {
    // 3x2 pixels, rows 5 bytes apart; the padding bytes are 99 and must never be read as pixels.
    let data: [UInt8] = [1, 2, 3, 99, 99, 4, 5, 6, 99, 99]
    let image = try FrameImager().decode(
        EncodedImage(encoding: .gray8, data: data, width: 3, height: 2, stride: 5), maxPixels: noCap)
    #expect(image.width == 3 && image.height == 2 && image.bytesPerRow == 5)
    let pixels = (0..<2).flatMap { y in (0..<3).map { x in image[x, y] } }
    #expect(pixels == [1, 2, 3, 4, 5, 6])
}

@Test func gray8StrideZeroMeansWidth() throws {
    let image = try FrameImager().decode(
        EncodedImage(encoding: .gray8, data: [10, 20, 30, 40, 50, 60], width: 2, height: 3), maxPixels: noCap)
    #expect(image.bytesPerRow == 2)
    #expect(image[1, 2] == 60)
}

@Test func gray8BadGeometryIsInvalidArgument() throws {
    let decoder = try FrameImager()
    let data = [UInt8](repeating: 0, count: 100)
    let narrowStride = error { () throws(LegibleError) in
        try decoder.decode(
            EncodedImage(encoding: .gray8, data: data, width: 10, height: 5, stride: 8), maxPixels: noCap)
    }
    #expect(narrowStride?.code == .invalidArgument)
    #expect(narrowStride?.message.contains("stride 8") == true)
    let noWidth = error { () throws(LegibleError) in
        try decoder.decode(EncodedImage(encoding: .gray8, data: data, width: 0, height: 5), maxPixels: noCap)
    }
    #expect(noWidth?.code == .invalidArgument)
    #expect(noWidth?.message.contains("0x5") == true)
}

@Test func pixelCapIsResourceExhausted() throws {
    let decoder = try FrameImager()
    let camera = try jpeg("camera-720p.jpg")
    let failure = error { () throws(LegibleError) in try decoder.decode(camera, maxPixels: 1280 * 720 - 1) }
    #expect(failure?.code == .resourceExhausted)
    #expect(failure?.message.contains("1280x720") == true)
    #expect(try decoder.decode(camera, maxPixels: 1280 * 720).width == 1280)

    // A raw buffer is checked before its size is: a huge claim fails on the cap, not the bytes.
    let huge = EncodedImage(encoding: .gray8, data: [0], width: 20000, height: 20000)
    #expect(
        error { () throws(LegibleError) in try decoder.decode(huge, maxPixels: 16_000_000) }?.code == .resourceExhausted
    )
}

@Test func scaledDecodeFitsMaxSide() throws {
    let decoder = try FrameImager()
    let camera = try jpeg("camera-720p.jpg")
    let half = try decoder.decode(camera, maxPixels: noCap, maxSide: 640)
    #expect(half.width == 640 && half.height == 360)
    #expect(half[5, 5] > 180)
    // 1/4 would be 320 wide, over 300: the next factor down, 1/8, gives 160x90.
    let small = try decoder.decode(camera, maxPixels: noCap, maxSide: 300)
    #expect(small.width == 160 && small.height == 90)
    let full = try decoder.decode(camera, maxPixels: noCap, maxSide: 1280)
    #expect(full.width == 1280 && full.height == 720)
}
