internal import CLeptonica
internal import LegibleCore

/// An 8-bit Leptonica `Pix` owned by Swift: made from a `GrayImage`, scaled or inverted by
/// Leptonica, handed to Tesseract with `TessBaseAPISetImage2`, destroyed in `deinit`.
///
/// Leptonica keeps 8-bit pixels big-endian inside 32-bit words, so a row copied with `memcpy`
/// is byte-swapped within each word; `pixEndianByteSwap` after the copy puts them right
/// (docs/library-facts.md, "Leptonica: byte order": a plain copy gave wrong pixels). Not `Sendable`: used on its engine's thread only.
final class LeptonicaImage {
    let pix: UnsafeMutablePointer<PIX>

    var width: Int { Int(pixGetWidth(pix)) }
    var height: Int { Int(pixGetHeight(pix)) }

    private init(owning pix: UnsafeMutablePointer<PIX>) {
        self.pix = pix
    }

    deinit {
        var pointer: UnsafeMutablePointer<PIX>? = pix
        pixDestroy(&pointer)
    }

    /// A copy of `image` as an 8 bpp Pix; nil when Leptonica cannot allocate it.
    convenience init?(_ image: GrayImage) {
        guard image.width > 0, image.height > 0,
            let pix = pixCreate(Int32(image.width), Int32(image.height), 8), let data = pixGetData(pix)
        else { return nil }
        let wordsPerLine = Int(pixGetWpl(pix))
        image.pixels.withUnsafeBytes { source in
            let destination = UnsafeMutableRawPointer(data)
            for row in 0..<image.height {
                (destination + row * wordsPerLine * 4).copyMemory(
                    from: source.baseAddress! + row * image.bytesPerRow, byteCount: image.width)
            }
        }
        pixEndianByteSwap(pix)
        self.init(owning: pix)
    }

    /// Scaled by `factor` on both axes: area mapping when shrinking, linear interpolation
    /// (with Leptonica's mild sharpening) when enlarging. nil when Leptonica fails.
    func scaled(by factor: Double) -> LeptonicaImage? {
        guard let scaled = pixScale(pix, Float(factor), Float(factor)) else { return nil }
        return LeptonicaImage(owning: scaled)
    }

    /// Light text on a dark ground turned into dark on light.
    func inverted() -> LeptonicaImage? {
        guard let inverted = pixInvert(nil, pix) else { return nil }
        return LeptonicaImage(owning: inverted)
    }
}

@available(*, unavailable, message: "a Pix is used on its engine's thread only")
extension LeptonicaImage: Sendable {}
