internal import CLeptonica
internal import CPNGMessages
internal import Glibc
public import LegibleCore

/// An owned Leptonica `PIX`, destroyed in `deinit`.
final class LeptonicaImage {
    private(set) var pix: UnsafeMutablePointer<PIX>?

    /// Takes ownership of `pix` (nil when the Leptonica call that made it failed).
    init?(_ pix: UnsafeMutablePointer<PIX>?) {
        guard let pix else { return nil }
        self.pix = pix
    }

    deinit {
        pixDestroy(&pix)
    }

    var width: Int { Int(pixGetWidth(pix)) }
    var height: Int { Int(pixGetHeight(pix)) }
    var depth: Int { Int(pixGetDepth(pix)) }
}

/// PNG through Leptonica: the header first (the size guard), then the pixels as 8-bit gray.
public enum PNGReader {
    /// Leptonica prints every failure to stderr; a server answers the client instead.
    private static let silenced: Void = { _ = setMsgSeverity(Int32(L_SEVERITY_NONE)) }()

    /// The message of libpng's last error on this thread, taken (Sources/CPNGMessages keeps
    /// it instead of letting libpng print it to stderr).
    static func libpngError() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard legible_png_take_error(&buffer, buffer.count) != 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The size in the PNG's IHDR, read without decoding a pixel.
    public static func header(of data: [UInt8]) throws(LegibleError) -> (width: Int, height: Int) {
        _ = silenced
        var width: Int32 = 0
        var height: Int32 = 0
        var bitsPerSample: Int32 = 0
        var samplesPerPixel: Int32 = 0
        var colormapped: Int32 = 0
        let status = data.withUnsafeBufferPointer { bytes in
            readHeaderMemPng(
                bytes.baseAddress, bytes.count, &width, &height, &bitsPerSample, &samplesPerPixel, &colormapped)
        }
        guard status == 0, width > 0, height > 0 else {
            throw LegibleError(.invalidArgument, "PNG header does not read: not a PNG, or its IHDR is damaged")
        }
        return (Int(width), Int(height))
    }

    /// Decodes to 8-bit gray, rows tightly packed into `buffer` (grown when too small, never
    /// shrunk, so a stream of frames reuses it).
    ///
    /// The header is checked against the limits before Leptonica allocates anything. Any
    /// depth, palette or alpha is accepted; colour becomes BT.601 luma, alpha is ignored.
    /// - Throws: `.resourceExhausted` over a limit, `.invalidArgument` when the data does not
    ///   decode (truncated, corrupt).
    public static func decodeGray(_ data: [UInt8], maxPixels: Int, maxSide: Int, into buffer: inout [UInt8])
        throws(LegibleError) -> (width: Int, height: Int)
    {
        let claimed = try header(of: data)
        try ImageLimits(maxPixels: maxPixels, maxSide: maxSide).check(
            width: claimed.width, height: claimed.height, what: "PNG")
        _ = libpngError()  // one left by an earlier read on this thread is not this one's
        let decoded = data.withUnsafeBufferPointer { bytes in
            LeptonicaImage(pixReadMemPng(bytes.baseAddress, bytes.count))
        }
        guard let decoded else {
            let reason = libpngError().map { "libpng: \($0)" } ?? "the data is truncated or corrupt"
            throw LegibleError(.invalidArgument, "PNG does not decode (\(reason))")
        }
        let gray: LeptonicaImage?
        switch decoded.depth {
        case 32:
            gray = LeptonicaImage(pixConvertRGBToGray(decoded.pix, 0.299, 0.587, 0.114))
        default:
            // 1, 2, 4, 8 (palette or not) and 16 bits per sample: Leptonica's own conversion.
            gray = LeptonicaImage(pixConvertTo8(decoded.pix, 0))
        }
        guard let gray, gray.depth == 8 else {
            throw LegibleError(.invalidArgument, "PNG of depth \(decoded.depth) does not convert to gray")
        }
        let width = gray.width
        let height = gray.height
        if buffer.count < width * height { buffer = [UInt8](repeating: 0, count: width * height) }
        // 8-bit pixels sit big-endian inside 32-bit words (docs/library-facts.md, "Leptonica: byte order"): swap, then copy rows.
        pixEndianByteSwap(gray.pix)
        let wordsPerLine = Int(pixGetWpl(gray.pix))
        let source = UnsafeRawPointer(pixGetData(gray.pix)!)
        buffer.withUnsafeMutableBytes { out in
            for y in 0..<height {
                (out.baseAddress! + y * width).copyMemory(from: source + y * wordsPerLine * 4, byteCount: width)
            }
        }
        return (width, height)
    }
}
