// `legible-floor --orientations FILE`: what turning a frame upright costs, Legible's folded
// copy (FrameImager.render: one strided walk out of the decoded buffer) against Leptonica's
// route (copy into a Pix, swap the words' bytes, pixFlipLR / pixRotateOrth, swap back, copy
// out), side by side in one run, with the JPEG decode and the per-frame quality measure and
// thumbnail beside them for scale.
internal import CLeptonica
internal import LegibleCore
internal import LegibleImaging

/// Turns `gray` upright for `orientation` the Leptonica way, into `out` (tightly packed).
func leptonicaUpright(_ gray: GrayImage, _ orientation: Orientation, into out: inout [UInt8]) {
    var pix = pixCreate(Int32(gray.width), Int32(gray.height), 8)
    defer { pixDestroy(&pix) }
    let words = Int(pixGetWpl(pix))
    let base = UnsafeMutableRawPointer(pixGetData(pix)!)
    gray.pixels.withUnsafeBufferPointer { source in
        for y in 0..<gray.height {
            (base + y * words * 4).copyMemory(from: source.baseAddress! + y * gray.bytesPerRow, byteCount: gray.width)
        }
    }
    // Leptonica keeps 8-bit pixels big-endian inside 32-bit words (docs/library-facts.md, "Leptonica: byte order").
    pixEndianByteSwap(pix)
    var flipped = orientation.isMirrored ? pixFlipLR(nil, pix) : pixClone(pix)
    defer { pixDestroy(&flipped) }
    var turned =
        orientation.clockwiseDegrees == 0
        ? pixClone(flipped) : pixRotateOrth(flipped, Int32(orientation.clockwiseDegrees / 90))
    defer { pixDestroy(&turned) }
    pixEndianByteSwap(turned)
    let width = Int(pixGetWidth(turned))
    let height = Int(pixGetHeight(turned))
    let outWords = Int(pixGetWpl(turned))
    let outBase = UnsafeRawPointer(pixGetData(turned)!)
    out.withUnsafeMutableBytes { target in
        for y in 0..<height {
            (target.baseAddress! + y * width).copyMemory(from: outBase + y * outWords * 4, byteCount: width)
        }
    }
}

func medianMilliseconds(runs: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var times: [Double] = []
    for _ in 0..<runs {
        let start = clock.now
        body()
        times.append(milliseconds(clock.now - start))
    }
    times.sort()
    return times[times.count / 2]
}

/// Prints one table row per orientation and a JSON line; fails if the routes disagree.
func timeOrientations(_ data: [UInt8], runs: Int) throws(LegibleError) {
    let imager = try FrameImager()
    let decode = medianMilliseconds(runs: runs) {
        _ = try? imager.load(EncodedImage(encoding: .jpeg, data: data), orientation: .up)
    }
    let gray = try imager.decode(EncodedImage(encoding: .jpeg, data: data), maxPixels: 100_000_000)
    let stored = try imager.load(EncodedImage(encoding: .jpeg, data: data), orientation: .up)
    var out = [UInt8](repeating: 0, count: gray.width * gray.height)
    var json: [String] = []
    // The measures every recognized frame also gets (FramePipeline): focus and exposure, and
    // the thumbnail the skip policy compares.
    let quality = medianMilliseconds(runs: runs) {
        _ = gray.pixels.withUnsafeBufferPointer {
            ImageQuality.measure($0, width: gray.width, height: gray.height, bytesPerRow: gray.bytesPerRow)
        }
    }
    let thumbnail = medianMilliseconds(runs: runs) { _ = LumaThumbnail(gray) }
    write(1, "\(gray.width)x\(gray.height): JPEG decode to gray \(decimal(decode)) ms (median of \(runs))\n")
    write(1, "quality measure \(decimal(quality)) ms, thumbnail \(decimal(thumbnail)) ms (medians)\n")
    write(1, "orientation     legible ms  leptonica ms\n")
    for orientation in Orientation.allCases {
        let ours = try imager.render(stored, orientation: orientation)
        leptonicaUpright(gray, orientation, into: &out)
        guard ours.image.pixels.prefix(out.count).elementsEqual(out) else {
            throw LegibleError(.internal, "Legible and Leptonica disagree on \(orientation)")
        }
        imager.recycle(ours)
        let legible = medianMilliseconds(runs: runs) {
            if let image = try? imager.render(stored, orientation: orientation) { imager.recycle(image) }
        }
        let leptonica = medianMilliseconds(runs: runs) { leptonicaUpright(gray, orientation, into: &out) }
        let name = "\(orientation)" + String(repeating: " ", count: max(0, 14 - "\(orientation)".count))
        write(1, "\(name)  \(decimal(legible))       \(decimal(leptonica))\n")
        json.append("\"\(orientation)\":{\"legible_ms\":\(decimal(legible)),\"leptonica_ms\":\(decimal(leptonica))}")
    }
    write(
        1,
        "{\"decode_ms\":\(decimal(decode)),\"quality_ms\":\(decimal(quality)),\"thumbnail_ms\":\(decimal(thumbnail)),\"orientations\":{\(json.joined(separator: ","))}}\n"
    )
}
