internal import LegibleCore
public import LegibleImaging

/// Fuzz target (c): `FrameImager.load` + `render` (decode → orient → crop), then the
/// thumbnail and quality measures the pipeline takes of the upright image, as
/// `FramePipeline.process` does before recognition.
///
/// Input layout (26 header bytes, little-endian, then the image data):
///
/// ```
/// 0 encoding (mod 7)    1 orientation (mod 9; 0 = unspecified: EXIF, else up)
/// 2 JPEG decode scale   3 bit 0: a region of interest follows; bit 1: a fresh imager
/// 4..19 region x, y, width, height (Int32 each, any value)
/// 20..25 raw width, height, stride (UInt16 each)
/// 26... data
/// ```
///
/// The imager is kept from input to input, as an engine keeps it from frame to frame, so a
/// buffer reused with a stale size would show; with bit 1 of byte 3 the input gets a fresh
/// one instead, whose buffers are exactly as large as this image needs, so that AddressSanitizer
/// sees a read past the image (in a reused, larger buffer it cannot). Limits are low (4 MP)
/// so that no input can make the fuzzer run out of memory on a claimed size.
///
/// Oracles: failures are INVALID_ARGUMENT or RESOURCE_EXHAUSTED; the upright image lies
/// within the limits, its size is the crop's (in stored pixels), and its coordinate map
/// lands inside the upright full image.
public final class ImagingHarness {
    public static let limits = ImageLimits(maxPixels: 4_000_000, maxSide: 16384)
    /// The imager kept from input to input.
    let kept = ImagingHarness.makeImager()

    public init() {}

    static func makeImager() -> FrameImager {
        do throws(LegibleError) {
            return try FrameImager(limits: limits)
        } catch {
            fatalError("cannot create the imager: \(error)")
        }
    }

    public func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let encoding = ImageEncoding.allCases[Int(input.byte()) % ImageEncoding.allCases.count]
        let orientationByte = Int(input.byte()) % 9
        let orientation = orientationByte == 0 ? nil : Orientation(rawValue: orientationByte)
        let scaleByte = Int(input.byte())
        let decodeScale: JPEGDecodeScale
        switch scaleByte % 4 {
        case 1: decodeScale = .fitting(maxSide: scaleByte / 4 * 16)
        case 2: decodeScale = .atLeast(Double(scaleByte / 4) / 63)
        default: decodeScale = .full
        }
        let flags = input.byte()
        let hasRegion = flags & 1 != 0
        let imager = flags & 2 != 0 ? Self.makeImager() : kept
        let region = Rect(
            x: input.integer(Int32.self), y: input.integer(Int32.self), width: input.integer(Int32.self),
            height: input.integer(Int32.self))
        let width = Int(input.integer(UInt16.self))
        let height = Int(input.integer(UInt16.self))
        let stride = Int(input.integer(UInt16.self))
        let image = EncodedImage(encoding: encoding, data: input.rest, width: width, height: height, stride: stride)
        run(image, with: imager, orientation: orientation, decodeScale: decodeScale, region: hasRegion ? region : nil)
    }

    func run(
        _ image: EncodedImage, with imager: FrameImager, orientation: Orientation?, decodeScale: JPEGDecodeScale,
        region: Rect?
    ) {
        do throws(LegibleError) {
            let stored = try imager.load(image, orientation: orientation, decodeScale: decodeScale)
            invariant(stored.width >= 1 && stored.height >= 1, "stored image of \(stored.width)x\(stored.height)")
            invariant(
                stored.fullWidth * stored.fullHeight <= Self.limits.maxPixels,
                "\(stored.fullWidth)x\(stored.fullHeight) passed the pixel limit")
            let upright = try imager.render(stored, orientation: stored.orientation, region: region)
            let full = stored.uprightFullSize(stored.orientation)
            let picture = upright.image
            invariant(picture.width >= 1 && picture.height >= 1, "upright image of \(picture.width)x\(picture.height)")
            let decoded = stored.orientation.uprightSize(width: stored.width, height: stored.height)
            invariant(
                picture.width <= decoded.width && picture.height <= decoded.height,
                "upright image \(picture.width)x\(picture.height) is larger than the decoded \(decoded)")
            let map = upright.map
            invariant(
                map.offsetX >= 0 && map.offsetY >= 0 && Int(map.offsetX) < full.width && Int(map.offsetY) < full.height,
                "crop origin (\(map.offsetX), \(map.offsetY)) outside the upright \(full.width)x\(full.height)")
            // The window copied, in decoded (possibly scaled) upright pixels, lies inside what was
            // decoded. A read just before a Swift array's elements lands in its header, where
            // AddressSanitizer sees nothing, so this is checked from the geometry.
            let left = Int((Double(map.offsetX) / map.scale).rounded())
            let top = Int((Double(map.offsetY) / map.scale).rounded())
            invariant(
                left + picture.width <= decoded.width && top + picture.height <= decoded.height,
                "window (\(left), \(top)) \(picture.width)x\(picture.height) outside the decoded \(decoded)")
            // What the pipeline measures before it decides to recognize.
            _ = LumaThumbnail(picture)
            _ = picture.pixels.withUnsafeBufferPointer { pixels in
                ImageQuality.measure(
                    pixels, width: picture.width, height: picture.height, bytesPerRow: picture.bytesPerRow)
            }
            imager.recycle(upright)
        } catch {
            invariant(
                error.code == .invalidArgument || error.code == .resourceExhausted,
                "failed with \(error.code): \(error.message)")
        }
    }
}

@available(*, unavailable, message: "owns a FrameImager: one thread")
extension ImagingHarness: Sendable {}
