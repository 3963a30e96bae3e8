internal import CLeptonica
import LegibleCore

/// Leptonica prints every failure to standard error; the client reports its own, one line per
/// file. Process-wide; touched before the first Leptonica call of each type below.
let leptonicaSilenced: Void = { _ = setMsgSeverity(Int32(L_SEVERITY_NONE)) }()

/// The image formats Leptonica tells apart by their first bytes (`findFileFormatBuffer`).
enum ImageFormat: Sendable, Hashable, CustomStringConvertible {
    case jpeg, png, tiff, bmp, gif, webp, pnm, jpeg2000
    /// Leptonica's own serialization (`spix`): read as the others are, never advertised.
    case spix

    /// What `recognize` says it reads, in the one line that refuses anything else.
    static let acceptedList = "JPEG, PNG, TIFF (every page), BMP, GIF, WebP, PNM (PBM/PGM/PPM/PAM) or JPEG 2000"

    /// The format of a file that begins with `head`; nil when Leptonica cannot read it (not an
    /// image, or PostScript and PDF, which it knows by name only).
    init?(head: [UInt8]) {
        _ = leptonicaSilenced
        // findFileFormatBuffer reads the first 12 bytes: a shorter file is padded with zeros
        // (no signature it knows ends in them).
        var padded = Array(head.prefix(16))
        padded += [UInt8](repeating: 0, count: 16 - padded.count)
        var format: Int32 = 0
        guard findFileFormatBuffer(padded, &format) == 0 else { return nil }
        switch format {
        case Int32(IFF_JFIF_JPEG): self = .jpeg
        case Int32(IFF_PNG): self = .png
        case Int32(IFF_TIFF), Int32(IFF_TIFF_PACKBITS), Int32(IFF_TIFF_RLE),
            Int32(IFF_TIFF_G3), Int32(IFF_TIFF_G4), Int32(IFF_TIFF_LZW),
            Int32(IFF_TIFF_ZIP), Int32(IFF_TIFF_JPEG):
            self = .tiff
        case Int32(IFF_BMP): self = .bmp
        case Int32(IFF_GIF): self = .gif
        case Int32(IFF_WEBP): self = .webp
        case Int32(IFF_PNM): self = .pnm
        case Int32(IFF_JP2): self = .jpeg2000
        case Int32(IFF_SPIX): self = .spix
        default: return nil
        }
    }

    /// The encoding the server takes this format in as it is (JPEG and PNG), else nil.
    var wireEncoding: ImageEncoding? {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        default: nil
        }
    }

    var description: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .tiff: "TIFF"
        case .bmp: "BMP"
        case .gif: "GIF"
        case .webp: "WebP"
        case .pnm: "PNM"
        case .jpeg2000: "JPEG 2000"
        case .spix: "SPIX"
        }
    }
}

/// An owned Leptonica image (`PIX`), destroyed in `deinit`. Not `Sendable`: the thread that
/// made it uses it.
final class LeptonicaImage {
    private var pix: UnsafeMutablePointer<PIX>?

    /// Takes ownership of `pix`; nil when the Leptonica call that made it failed.
    init?(_ pix: UnsafeMutablePointer<PIX>?) {
        guard let pix else { return nil }
        self.pix = pix
    }

    deinit { pixDestroy(&pix) }

    /// Decodes one image of any format Leptonica reads (the first page of a TIFF, the first
    /// frame of a GIF); nil when the data does not decode.
    static func decode(_ data: [UInt8]) -> LeptonicaImage? {
        _ = leptonicaSilenced
        return data.withUnsafeBufferPointer { LeptonicaImage(pixReadMem($0.baseAddress, $0.count)) }
    }

    /// What `pixReadHeaderMem` says of an encoded image without decoding it: samples per
    /// pixel (2 and 4 carry alpha) and whether it has a colormap (whose entries may).
    static func header(of data: [UInt8]) -> (samplesPerPixel: Int, colormapped: Bool)? {
        _ = leptonicaSilenced
        var format: Int32 = 0
        var width: Int32 = 0
        var height: Int32 = 0
        var bitsPerSample: Int32 = 0
        var samplesPerPixel: Int32 = 0
        var colormapped: Int32 = 0
        let status = data.withUnsafeBufferPointer {
            pixReadHeaderMem(
                $0.baseAddress, $0.count, &format, &width, &height, &bitsPerSample, &samplesPerPixel, &colormapped)
        }
        guard status == 0 else { return nil }
        return (Int(samplesPerPixel), colormapped != 0)
    }

    var width: Int { Int(pixGetWidth(pix)) }
    var height: Int { Int(pixGetHeight(pix)) }
    /// Bits per pixel: 1, 2, 4, 8, 16 or 32 (RGB or RGBA).
    var depth: Int { Int(pixGetDepth(pix)) }
    /// 4 for a 32-bit image with alpha.
    var samplesPerPixel: Int { Int(pixGetSpp(pix)) }
    var hasColormap: Bool { pixGetColormap(pix) != nil }
    var hasAlpha: Bool { depth == 32 && samplesPerPixel == 4 }

    /// The image over a white background, without alpha (a copy), or nil when it has none.
    ///
    /// Leptonica reads every kind of PNG, TIFF and WebP transparency (RGBA, gray + alpha,
    /// a palette with transparent entries) as 32-bit RGBA; transparent pixels often hold
    /// black, so ignoring alpha would turn dark text on a transparent background into black
    /// on black.
    func flattenedOnWhite() -> LeptonicaImage? {
        guard hasAlpha else { return nil }
        return LeptonicaImage(pixAlphaBlendUniform(pix, 0xFFFF_FF00))
    }

    /// An 8-bit gray copy without a colormap: colour as BT.601 luma (the weights the server
    /// uses for PNG), 1-bit black on white, 2- and 4-bit and colormaps by their gray values,
    /// 16-bit by the high byte. Alpha is not looked at (flatten first).
    func gray8() -> LeptonicaImage? {
        let gray: LeptonicaImage?
        if depth == 32 && !hasColormap {
            gray = LeptonicaImage(pixConvertRGBToGray(pix, 0.299, 0.587, 0.114))
        } else {
            gray = LeptonicaImage(pixConvertTo8(pix, 0))
        }
        guard let gray, gray.depth == 8, !gray.hasColormap else { return nil }
        return gray
    }

    /// An 8-bit image's rows tightly packed, top to bottom (the `GRAY8` encoding).
    func gray8Bytes() -> [UInt8] {
        precondition(depth == 8 && !hasColormap)
        let width = self.width
        let height = self.height
        let wordsPerLine = Int(pixGetWpl(pix))
        // Leptonica keeps 8-bit pixels big-endian inside 32-bit words: on a little-endian
        // machine byte i of a row is at (i ^ 3). Swap a copy's words, then copy rows.
        guard let swapped = LeptonicaImage(pixCopy(nil, pix)) else { return [] }
        pixEndianByteSwap(swapped.pix)
        let source = UnsafeRawPointer(pixGetData(swapped.pix)!)
        return [UInt8](unsafeUninitializedCapacity: width * height) { out, count in
            for y in 0..<height {
                UnsafeMutableRawPointer(out.baseAddress! + y * width).copyMemory(
                    from: source + y * wordsPerLine * 4, byteCount: width)
            }
            count = width * height
        }
    }

    /// The image as a PNG file (lossless; 1-bit stays 1-bit), or nil when encoding fails.
    func pngData() -> [UInt8]? {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard pixWriteMemPng(&bytes, &size, pix, 0) == 0, let bytes else { return nil }
        defer { lept_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}

/// The pages of a TIFF in memory, decoded one at a time as they are asked for (a long scan
/// never sits decoded in memory at once). Not `Sendable`.
final class TIFFPageReader {
    private let data: [UInt8]
    /// Where the next page's directory starts; Leptonica sets it to 0 after the last page.
    private var offset = 0
    /// Pages returned so far.
    private(set) var pagesRead = 0
    /// No page follows the last one returned (or a page did not decode).
    private(set) var isFinished = false

    init(_ data: [UInt8]) {
        _ = leptonicaSilenced
        self.data = data
    }

    /// The next page; nil when none is left or it does not decode (then `isFinished` is set
    /// as well, and `pagesRead` tells which page failed: `pagesRead + 1`).
    func next() -> LeptonicaImage? {
        guard !isFinished else { return nil }
        var next = offset
        let page = data.withUnsafeBufferPointer {
            LeptonicaImage(pixReadMemFromMultipageTiff($0.baseAddress, $0.count, &next))
        }
        guard let page else {
            isFinished = true
            return nil
        }
        pagesRead += 1
        offset = next
        if next == 0 { isFinished = true }
        return page
    }
}
