import LegibleCore
import LegibleImaging
import Testing

/// A gray picture as rows, for building stored buffers by plain geometry.
private typealias Picture = [[UInt8]]

private func rotatedClockwise(_ p: Picture) -> Picture {
    let rows = p.count
    let columns = p[0].count
    return (0..<columns).map { i in (0..<rows).map { j in p[rows - 1 - j][i] } }
}

private func mirrored(_ p: Picture) -> Picture { p.map { $0.reversed() } }

/// The stored picture whose EXIF `orientation` turns it into `upright`: upright is the
/// stored picture mirrored (if so) and then turned clockwise, so undo the turn, then the mirror.
private func stored(_ upright: Picture, _ orientation: Orientation) -> Picture {
    var p = upright
    for _ in 0..<((360 - orientation.clockwiseDegrees) % 360 / 90) { p = rotatedClockwise(p) }
    return orientation.isMirrored ? mirrored(p) : p
}

/// Every pixel different and no symmetry: a wrong turn or mirror cannot go unseen.
private func asymmetric(width: Int, height: Int) -> Picture {
    (0..<height).map { y in (0..<width).map { x in UInt8(truncatingIfNeeded: x * 7 + y * 31 + (x * y) % 13) } }
}

/// Packs a stored gray picture as `encoding`, rows `padding` bytes longer than needed (filled
/// with 0xEE, never to be read), chroma planes filled with 0x80.
private func pack(_ p: Picture, as encoding: ImageEncoding, padding: Int) -> EncodedImage {
    let height = p.count
    let width = p[0].count
    var data: [UInt8] = []
    func rows(_ body: (Int) -> [UInt8], count: Int, rowBytes: Int) {
        for y in 0..<count {
            let row = body(y)
            data += row + [UInt8](repeating: 0xEE, count: rowBytes - row.count)
        }
    }
    let chromaRows = (height + 1) / 2
    switch encoding {
    case .gray8, .i420, .nv12:
        let minimum = encoding == .nv12 ? (width + 1) / 2 * 2 : width
        let stride = minimum + padding
        rows({ p[$0] }, count: height, rowBytes: stride)
        if encoding == .nv12 {
            rows({ _ in [UInt8](repeating: 0x80, count: minimum) }, count: chromaRows, rowBytes: stride)
        } else if encoding == .i420 {
            let chroma = (stride + 1) / 2
            for _ in 0..<2 {
                rows({ _ in [UInt8](repeating: 0x80, count: (width + 1) / 2) }, count: chromaRows, rowBytes: chroma)
            }
        }
        return EncodedImage(encoding: encoding, data: data, width: width, height: height, stride: stride)
    case .rgba8, .bgra8:
        // Gray pixels as R = G = B, so the luma is the gray value exactly.
        let stride = 4 * width + padding
        rows({ y in p[y].flatMap { [$0, $0, $0, 0xFF] } }, count: height, rowBytes: stride)
        return EncodedImage(encoding: encoding, data: data, width: width, height: height, stride: stride)
    case .jpeg, .png:
        preconditionFailure()
    }
}

private func picture(_ image: GrayImage) -> Picture {
    (0..<image.height).map { y in (0..<image.width).map { x in image[x, y] } }
}

private let rawEncodings: [ImageEncoding] = [.gray8, .rgba8, .bgra8, .nv12, .i420]

@Test(arguments: Orientation.allCases)
func everyOrientationComesOutUpright(orientation: Orientation) throws {
    let imager = try FrameImager()
    // Odd sides: the 4:2:0 chroma rounding and the quarter-turn tiles both get a ragged edge.
    for (width, height) in [(13, 7), (64, 37), (1, 9)] {
        let upright = asymmetric(width: width, height: height)
        for encoding in rawEncodings {
            let image = pack(stored(upright, orientation), as: encoding, padding: 5)
            let loaded = try imager.load(image, orientation: orientation)
            #expect(loaded.orientation == orientation && loaded.orientationSource == .client)
            let result = try imager.render(loaded, orientation: orientation)
            #expect(picture(result.image) == upright, "\(encoding) \(orientation) \(width)x\(height)")
            imager.recycle(result)
        }
    }
}

@Test(arguments: Orientation.allCases)
func regionIsCutFromTheUprightImage(orientation: Orientation) throws {
    let imager = try FrameImager()
    let upright = asymmetric(width: 40, height: 30)
    let loaded = try imager.load(pack(stored(upright, orientation), as: .gray8, padding: 3), orientation: orientation)
    // Partly outside: clipped to (30, 5)-(40, 30).
    let result = try imager.render(loaded, orientation: orientation, region: Rect(x: 30, y: 5, width: 25, height: 100))
    #expect(result.image.width == 10 && result.image.height == 25)
    #expect(picture(result.image) == upright[5..<30].map { Array($0[30..<40]) })
    #expect(result.map == CoordinateMap(offsetX: 30, offsetY: 5))
    #expect(result.map.map(Rect(x: 1, y: 2, width: 3, height: 4)) == Rect(x: 31, y: 7, width: 3, height: 4))
}

@Test func regionOutsideTheImageIsInvalidArgument() throws {
    let imager = try FrameImager()
    let loaded = try imager.load(pack(asymmetric(width: 40, height: 30), as: .gray8, padding: 0), orientation: .right)
    // Upright the image is 30 x 40: x = 35 lies beyond it.
    do {
        _ = try imager.render(loaded, orientation: .right, region: Rect(x: 35, y: 0, width: 10, height: 10))
        Issue.record("expected a failure")
    } catch {
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("outside the upright 30x40 image"))
    }
}

@Test(arguments: rawEncodings)
func rawBufferOneByteShortIsInvalidArgument(encoding: ImageEncoding) throws {
    let imager = try FrameImager()
    var image = pack(asymmetric(width: 9, height: 5), as: encoding, padding: 2)
    #expect(throws: Never.self) { try imager.load(image) }
    image.data.removeLast()
    do {
        _ = try imager.load(image)
        Issue.record("expected a failure")
    } catch {
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("needs \(image.data.count + 1)"), "\(error.message)")
    }
}

@Test(arguments: rawEncodings)
func rawStrideBelowTheRowIsInvalidArgument(encoding: ImageEncoding) throws {
    let imager = try FrameImager()
    var image = pack(asymmetric(width: 9, height: 5), as: encoding, padding: 0)
    image.stride -= 1
    do {
        _ = try imager.load(image)
        Issue.record("expected a failure")
    } catch {
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("stride \(image.stride)"))
    }
}

@Test func sideOverTheLimitIsResourceExhaustedBeforeAnyCopy() throws {
    let imager = try FrameImager()
    // 17000 x 2 is far under 40 MP but over the 16384 side limit; the one byte of data is
    // never looked at.
    do {
        _ = try imager.load(EncodedImage(encoding: .bgra8, data: [0], width: 17000, height: 2))
        Issue.record("expected a failure")
    } catch {
        #expect(error.code == .resourceExhausted)
        #expect(error.message.contains("over the limit of 16384"))
    }
}

@Test func bgraAndRGBAReadTheirOwnChannels() throws {
    let imager = try FrameImager()
    // One pure red pixel: as RGBA its luma is red's weight, as BGRA the same bytes are blue.
    let bytes: [UInt8] = [255, 0, 0, 255]
    let red = try imager.decode(EncodedImage(encoding: .rgba8, data: bytes, width: 1, height: 1), maxPixels: 10)
    let blue = try imager.decode(EncodedImage(encoding: .bgra8, data: bytes, width: 1, height: 1), maxPixels: 10)
    #expect(red[0, 0] == 76)  // (255 * 19595 + 0x8000) >> 16, Pillow's "L"
    #expect(blue[0, 0] == 29)
}

@Test func orientationAlgebraComposes() {
    #expect(Orientation.right.turned(clockwiseBy: 90) == .down)
    #expect(Orientation.up.turned(clockwiseBy: 270) == .left)
    #expect(Orientation.leftMirrored.turned(clockwiseBy: 90) == .upMirrored)
    for orientation in Orientation.allCases {
        #expect(
            Orientation(clockwiseDegrees: orientation.clockwiseDegrees, mirrored: orientation.isMirrored) == orientation
        )
        #expect(orientation.turned(clockwiseBy: 360) == orientation)
    }
    // A box's corners map back to the stored 40 x 30 buffer (edges, not pixel centres).
    #expect(Orientation.right.storedPoint(x: 0, y: 0, storedWidth: 40, storedHeight: 30) == (0, 30))
    #expect(Orientation.left.storedPoint(x: 30, y: 40, storedWidth: 40, storedHeight: 30) == (0, 30))
}
