internal import CTurboJPEG
internal import LegibleCore

/// libturbojpeg's decompressor, reading JPEGs straight to 8-bit gray.
///
/// Owns one `tjhandle`, freed in `deinit`. Not `Sendable`: it lives on one engine thread.
///
/// A failed call leaves libjpeg's state where the error stopped it (a header cut before its
/// SOS marker leaves it mid-header, and the next JPEG then reads as 0x0), so after any failure
/// the handle is replaced by a fresh one: one bad frame must not fail the next client's.
final class JPEGDecoder {
    /// From `tjInitDecompress`; never nil once `init` returns.
    private var handle: UnsafeMutableRawPointer

    init() throws(LegibleError) {
        guard let handle = tjInitDecompress() else {
            throw LegibleError(.internal, "cannot create a JPEG decompressor: \(Self.errorText(nil))")
        }
        self.handle = handle
    }

    deinit {
        tjDestroy(handle)
    }

    /// The size the JPEG's header claims, read without decoding a pixel.
    func header(_ data: UnsafeBufferPointer<UInt8>) throws(LegibleError) -> (width: Int, height: Int) {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        if tjDecompressHeader3(handle, data.baseAddress, UInt(data.count), &width, &height, &subsampling, &colorspace)
            != 0
        {
            let error = LegibleError(.invalidArgument, "JPEG header does not read: \(Self.errorText(handle))")
            renew()
            throw error
        }
        guard width > 0, height > 0 else {
            throw LegibleError(.invalidArgument, "JPEG header gives a size of \(width)x\(height)")
        }
        return (Int(width), Int(height))
    }

    /// Decodes to gray at `width` x `height` (the header's size or one of libjpeg-turbo's
    /// scaled sizes, see `scaledSize`), rows tightly packed into `output`.
    ///
    /// Any libjpeg warning fails the frame (TJFLAG_STOPONWARNING): a truncated upload or a
    /// corrupt scan would otherwise come back as a half-grey image that reads as nothing, with
    /// no word to the client why. TJFLAG_LIMITSCANS stops progressive JPEGs with absurd scan
    /// counts, a known way to make a small file cost seconds of CPU.
    func decodeGray(
        _ data: UnsafeBufferPointer<UInt8>, width: Int, height: Int, into output: UnsafeMutablePointer<UInt8>
    ) throws(LegibleError) {
        let flags = Int32(TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
        let status = tjDecompress2(
            handle, data.baseAddress, UInt(data.count), output, Int32(width), Int32(width), Int32(height),
            Int32(TJPF_GRAY.rawValue), flags)
        if status != 0 {
            let error = LegibleError(.invalidArgument, "JPEG does not decode: \(Self.errorText(handle))")
            renew()
            throw error
        }
    }

    /// Replaces the handle after a failure (keeps the old one if no new one can be made).
    private func renew() {
        guard let fresh = tjInitDecompress() else { return }
        tjDestroy(handle)
        handle = fresh
    }

    private static func errorText(_ handle: UnsafeMutableRawPointer?) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown turbojpeg error" }
        return String(cString: text)
    }

    /// The size of the scaled decode for `scale`, from libjpeg-turbo's scaling factors (1/8
    /// to 1 in eighths): `.fitting` takes the largest factor whose longer side fits (the
    /// smallest factor when none fits), `.atLeast` the smallest factor not below the fraction.
    static func scaledSize(width: Int, height: Int, scale: JPEGDecodeScale) -> (width: Int, height: Int) {
        if case .full = scale { return (width, height) }
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return (width, height) }
        // TJSCALED(dimension, factor) is a macro, so not imported.
        func scaled(_ side: Int, _ factor: tjscalingfactor) -> Int {
            (side * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
        }
        let usable = UnsafeBufferPointer(start: factors, count: Int(count)).filter { $0.num <= $0.denom }
            .sorted { $0.num * $1.denom < $1.num * $0.denom }
        switch scale {
        case .full:
            return (width, height)
        case .fitting(let maxSide):
            guard max(width, height) > maxSide else { return (width, height) }
            let fitting = usable.last { max(scaled(width, $0), scaled(height, $0)) <= maxSide } ?? usable.first
            return fitting.map { (scaled(width, $0), scaled(height, $0)) } ?? (width, height)
        case .atLeast(let fraction):
            let factor = usable.first { Double($0.num) / Double($0.denom) >= fraction } ?? usable.last
            return factor.map { (scaled(width, $0), scaled(height, $0)) } ?? (width, height)
        }
    }
}

/// How large a JPEG is decoded: libjpeg-turbo's DCT scaling makes a smaller decode cheaper
/// than a full decode and a resize.
public enum JPEGDecodeScale: Sendable, Hashable {
    case full
    /// The largest scaling factor whose longer side fits `maxSide`.
    case fitting(maxSide: Int)
    /// The smallest scaling factor not below this fraction (0...1].
    case atLeast(Double)
}

@available(*, unavailable, message: "a JPEG decompressor belongs to one engine thread")
extension JPEGDecoder: Sendable {}
