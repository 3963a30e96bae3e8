internal import CTurboJPEG
public import LegibleCore

/// Turns a frame's `EncodedImage` into the 8-bit gray image the recognizer reads.
///
/// Owns one libturbojpeg decompressor, freed in `deinit`. Not `Sendable`: like the Tesseract
/// handle it serves, a decoder lives on one engine thread and is used there only.
public final class ImageDecoder {
    /// The `tjhandle` from `tjInitDecompress`; never nil once `init` returns.
    private let handle: UnsafeMutableRawPointer

    public init() throws(LegibleError) {
        guard let handle = tjInitDecompress() else {
            throw LegibleError(.internal, "cannot create a JPEG decompressor: \(Self.errorText(nil))")
        }
        self.handle = handle
    }

    deinit {
        tjDestroy(handle)
    }

    /// Decodes `image` to gray.
    ///
    /// - Parameters:
    ///   - maxPixels: the largest width × height accepted, checked against the image's header
    ///     before any pixel buffer is allocated (a 20000 × 20000 frame would otherwise cost
    ///     gigabytes further down); a larger image fails with `.resourceExhausted`.
    ///   - maxSide: JPEG only: when the longer side exceeds it, decode at the largest
    ///     libjpeg-turbo scaling factor (1/2, 1/4, …) that fits, which costs less than a full
    ///     decode. `nil` (the default) always decodes at full size.
    /// - Throws: `.invalidArgument` for bytes or geometry that do not make an image,
    ///   `.resourceExhausted` over `maxPixels`, `.unimplemented` for encodings not decoded yet.
    public func decode(_ image: EncodedImage, maxPixels: Int, maxSide: Int? = nil) throws(LegibleError) -> GrayImage {
        if image.data.isEmpty {
            throw LegibleError(.invalidArgument, "empty image")
        }
        switch image.encoding {
        case .jpeg:
            return try decodeJPEG(image.data, maxPixels: maxPixels, maxSide: maxSide)
        case .gray8:
            return try Self.wrapGray8(image, maxPixels: maxPixels)
        case .png, .rgba8, .bgra8, .nv12, .i420:
            throw LegibleError(.unimplemented, "ENCODING_\(image.encoding.description.uppercased()) is not supported yet")
        }
    }

    private func decodeJPEG(_ data: [UInt8], maxPixels: Int, maxSide: Int?) throws(LegibleError) -> GrayImage {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let headerStatus = data.withUnsafeBufferPointer { bytes in
            tjDecompressHeader3(handle, bytes.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        }
        if headerStatus != 0 && !isWarning() {
            throw LegibleError(.invalidArgument, "JPEG does not decode: \(Self.errorText(handle))")
        }
        guard width > 0, height > 0 else {
            throw LegibleError(.invalidArgument, "JPEG header gives a size of \(width)x\(height)")
        }
        try Self.checkPixelCap(width: Int(width), height: Int(height), maxPixels: maxPixels)

        let (outWidth, outHeight) = Self.scaledSize(width: Int(width), height: Int(height), maxSide: maxSide)
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight)
        let status = data.withUnsafeBufferPointer { bytes in
            pixels.withUnsafeMutableBufferPointer { out in
                // Asking for (outWidth, outHeight) makes turbojpeg pick the matching scaling factor.
                tjDecompress2(
                    handle, bytes.baseAddress, UInt(bytes.count), out.baseAddress, Int32(outWidth),
                    Int32(outWidth), Int32(outHeight), Int32(TJPF_GRAY.rawValue), 0)
            }
        }
        // A warning (say "Premature end of JPEG file" from a truncated upload, or extraneous
        // bytes some camera firmware writes) still leaves a full-size image: turbojpeg decodes
        // what it can and fills the rest. Without TJFLAG_STOPONWARNING it returns -1 for it all
        // the same, so only an error (TJERR_FATAL) fails the frame; a partial frame is better
        // text than none for a live camera stream.
        if status != 0 && !isWarning() {
            throw LegibleError(.invalidArgument, "JPEG does not decode: \(Self.errorText(handle))")
        }
        return GrayImage(width: outWidth, height: outHeight, bytesPerRow: outWidth, pixels: pixels)
    }

    private func isWarning() -> Bool {
        tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
    }

    private static func errorText(_ handle: UnsafeMutableRawPointer?) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown turbojpeg error" }
        return String(cString: text)
    }

    /// The size of the scaled decode: the largest scaling factor not above 1 whose longer side
    /// fits `maxSide` (the smallest factor when none fits); full size without `maxSide`.
    static func scaledSize(width: Int, height: Int, maxSide: Int?) -> (Int, Int) {
        guard let maxSide, max(width, height) > maxSide else { return (width, height) }
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return (width, height) }
        // TJSCALED(dimension, factor): a macro, so not imported.
        func scaled(_ side: Int, _ factor: tjscalingfactor) -> Int {
            (side * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
        }
        var best: (Int, Int)? = nil
        var smallest = (width, height)
        for factor in UnsafeBufferPointer(start: factors, count: Int(count)) where factor.num <= factor.denom {
            let size = (scaled(width, factor), scaled(height, factor))
            if size.0 * size.1 < smallest.0 * smallest.1 { smallest = size }
            if max(size.0, size.1) <= maxSide, size.0 * size.1 > (best.map { $0.0 * $0.1 } ?? 0) {
                best = size
            }
        }
        return best ?? smallest
    }

    /// A GRAY8 buffer needs no decoding: check its geometry and keep the client's bytes and
    /// stride as they are (the array is shared, not copied).
    private static func wrapGray8(_ image: EncodedImage, maxPixels: Int) throws(LegibleError) -> GrayImage {
        let width = image.width
        let height = image.height
        guard width > 0, height > 0 else {
            throw LegibleError(.invalidArgument, "GRAY8 image needs a width and height above 0, got \(width)x\(height)")
        }
        let stride = image.stride == 0 ? width : image.stride
        guard stride >= width else {
            throw LegibleError(.invalidArgument, "GRAY8 stride \(stride) is less than the width \(width)")
        }
        try checkPixelCap(width: width, height: height, maxPixels: maxPixels)
        let (needed, overflow) = height.multipliedReportingOverflow(by: stride)
        guard !overflow, image.data.count >= needed else {
            throw LegibleError(
                .invalidArgument,
                "GRAY8 buffer has \(image.data.count) bytes, height \(height) x stride \(stride) needs \(overflow ? "more" : String(needed))")
        }
        return GrayImage(width: width, height: height, bytesPerRow: stride, pixels: image.data)
    }

    private static func checkPixelCap(width: Int, height: Int, maxPixels: Int) throws(LegibleError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw LegibleError(
                .resourceExhausted, "image of \(width)x\(height) pixels is over the limit of \(maxPixels) pixels")
        }
    }
}

@available(*, unavailable, message: "an ImageDecoder belongs to one engine thread")
extension ImageDecoder: Sendable {}
