import LegibleCore

/// One frame `recognize` sends for an input: the whole image, or one page of a TIFF that has
/// several.
struct InputPage {
    var image: EncodedImage
    /// From 1, for a file with several pages (a multi-page TIFF); nil for a single image.
    var number: Int?
}

/// The frames of one input, page by page, in an encoding the server takes.
///
/// JPEG and PNG go as they are (the server decodes them; its EXIF handling applies), except a
/// PNG with transparency. Every other format Leptonica reads (TIFF, BMP, GIF, WebP, PNM, JPEG
/// 2000) is decoded here, one page at a time, and sent as the server would read it anyway:
/// 8-bit gray (`GRAY8`, or as a PNG when the raw buffer is over the server's message limit),
/// a 1-bit image as a 1-bit PNG (a scanned page stays a few kilobytes), transparency
/// flattened onto white.
final class PageSource {
    private let name: String
    private let format: ImageFormat
    private let data: [UInt8]
    private let maxMessageBytes: UInt64
    private var tiff: TIFFPageReader?
    private var finished = false
    /// Known once the first page is read: the file has more than one.
    private(set) var isMultiPage = false

    /// Reads the input's bytes (exit 1 when it cannot any more).
    init(_ input: InputImage, maxMessageBytes: UInt64) throws(CLIFailure) {
        name = input.displayName
        format = input.format
        data = try input.read()
        self.maxMessageBytes = maxMessageBytes
        if format == .tiff { tiff = TIFFPageReader(data) }
    }

    /// The next page; nil after the last. A page that does not decode or is too large for the
    /// server throws (exit 1); for a TIFF, no page follows one that does not decode.
    func next() throws(CLIFailure) -> InputPage? {
        if let tiff { return try nextPage(of: tiff) }
        guard !finished else { return nil }
        finished = true
        switch format {
        case .jpeg:
            return InputPage(image: try checked(EncodedImage(encoding: .jpeg, data: data)), number: nil)
        case .png where !mayBeTransparent:
            return InputPage(image: try checked(EncodedImage(encoding: .png, data: data)), number: nil)
        default:
            guard let image = LeptonicaImage.decode(data) else {
                // A PNG the header check could not read goes as it is: the server says why.
                if format == .png {
                    return InputPage(image: try checked(EncodedImage(encoding: .png, data: data)), number: nil)
                }
                throw CLIFailure(.failure, "\(name): the \(format) image does not decode (truncated or corrupt)")
            }
            if format == .png, !image.hasAlpha {
                return InputPage(image: try checked(EncodedImage(encoding: .png, data: data)), number: nil)
            }
            return InputPage(image: try frameImage(image, what: "\(name)"), number: nil)
        }
    }

    private func nextPage(of tiff: TIFFPageReader) throws(CLIFailure) -> InputPage? {
        guard !tiff.isFinished else { return nil }
        guard let page = tiff.next() else {
            if tiff.pagesRead == 0 {
                throw CLIFailure(.failure, "\(name): the TIFF image does not decode (truncated or corrupt)")
            }
            throw CLIFailure(
                .failure,
                "\(name): page \(tiff.pagesRead + 1) of the TIFF does not decode (truncated or corrupt); "
                    + "no later page is read")
        }
        if tiff.pagesRead == 1 { isMultiPage = !tiff.isFinished }
        let number = isMultiPage ? tiff.pagesRead : nil
        return InputPage(
            image: try frameImage(page, what: number.map { "\(name) page \($0)" } ?? name), number: number)
    }

    /// A PNG whose header says it has alpha (gray + alpha, RGBA) or a palette, whose entries
    /// may be transparent (only decoding tells). Leptonica reads all of them as RGBA.
    private var mayBeTransparent: Bool {
        guard let header = LeptonicaImage.header(of: data) else { return false }
        return header.samplesPerPixel == 2 || header.samplesPerPixel == 4 || header.colormapped
    }

    /// A decoded image as the frame to send (see the type's summary).
    private func frameImage(_ decoded: LeptonicaImage, what: String) throws(CLIFailure) -> EncodedImage {
        let image = decoded.flattenedOnWhite() ?? decoded
        if image.depth == 1, let png = image.pngData() {
            return try checked(EncodedImage(encoding: .png, data: png), what: what)
        }
        guard let gray = image.gray8() else {
            throw CLIFailure(
                .failure, "\(what): Leptonica cannot turn this \(image.depth)-bit \(format) image into gray")
        }
        if fits(gray.width * gray.height) {
            return EncodedImage(
                encoding: .gray8, data: gray.gray8Bytes(), width: gray.width, height: gray.height, stride: 0)
        }
        guard let png = gray.pngData() else {
            throw CLIFailure(.failure, "\(what): Leptonica cannot encode the \(gray.width)x\(gray.height) image as PNG")
        }
        return try checked(EncodedImage(encoding: .png, data: png), what: what)
    }

    /// `image`, unless it is over the server's message limit.
    private func checked(_ image: EncodedImage, what: String? = nil) throws(CLIFailure) -> EncodedImage {
        guard fits(image.data.count) else {
            throw CLIFailure(
                .failure,
                "\(what ?? name): \(image.data.count) bytes is over the server's message limit of \(maxMessageBytes) bytes"
            )
        }
        return image
    }

    /// The frame's own fields take a few bytes beside the image.
    private func fits(_ bytes: Int) -> Bool {
        maxMessageBytes == 0 || UInt64(bytes) + 64 <= maxMessageBytes
    }
}
