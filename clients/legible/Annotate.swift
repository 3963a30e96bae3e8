internal import CLeptonica
import Foundation
import LegibleCore
import LegibleImaging
import LegibleWire

/// `--annotate`: the upright image with every line's and word's box and each line's text,
/// drawn with Leptonica and written as PNG.
///
/// The image is decoded with the server's own imaging code (`FrameImager`, gray) and turned
/// upright by the orientation the server reports it applied (`FrameResult.orientation`, which
/// includes an OSD turn), so the boxes, in upright pixels, land where the text is and the
/// PNG is `Text.image_width` x `Text.image_height`.
enum Annotator {
    /// Line boxes red, word boxes green, labels blue on white.
    static let lineColor: (UInt8, UInt8, UInt8) = (220, 0, 0)
    static let wordColor: (UInt8, UInt8, UInt8) = (0, 170, 0)
    static let labelColor: UInt32 = 0x0000_C000  // 0xRRGGBB00: blue

    /// Draws `result`'s boxes over `image` (as sent) and writes the PNG to `path`.
    static func annotate(
        _ image: EncodedImage, sentOrientation: Orientation?, result: FrameResult, to path: String
    ) throws(CLIFailure) {
        let text = result.text ?? RecognizedText()
        let orientation = result.orientation?.orientation ?? sentOrientation
        let upright: GrayImage
        do {
            let imager = try FrameImager()
            let stored = try imager.load(image, orientation: orientation)
            upright = try imager.render(stored, orientation: orientation ?? stored.orientation).image
        } catch {
            throw CLIFailure(.failure, "cannot decode the image to annotate it: \(error.message)")
        }
        guard let canvas = Canvas(upright) else {
            throw CLIFailure(.failure, "Leptonica cannot make a \(upright.width)x\(upright.height) image")
        }
        let font = BitmapFont(size: fontSize(forHeight: upright.height))
        for line in text.lines {
            canvas.drawBox(line.frame, width: 2, color: lineColor)
            for element in line.elements { canvas.drawBox(element.frame, width: 1, color: wordColor) }
        }
        // Document mode's words live in paragraphs; its lines carry them too, but draw any
        // the lines left out.
        let drawn = Set(text.lines.flatMap { $0.elements.map(\.frame) })
        for word in text.words where !drawn.contains(word.frame) {
            canvas.drawBox(word.frame, width: 1, color: wordColor)
        }
        if let font {
            for line in text.lines { canvas.drawLabel(line.text, above: line.frame, font: font, color: labelColor) }
        }
        guard canvas.writePNG(to: path) else { throw CLIFailure(.failure, "cannot write \(path)") }
    }

    /// Leptonica's bitmap fonts come in even sizes 4...20 (points at 300 ppi: size 4 is 17 px
    /// high): the smallest up to 720p, one size up per 540 px more, so labels stay small.
    static func fontSize(forHeight height: Int) -> Int32 {
        Int32(min(20, max(4, height / 540 * 2 + 2)))
    }
}

/// An owned 32-bit RGB Leptonica image, destroyed in `deinit`.
private final class Canvas {
    private var pix: UnsafeMutablePointer<PIX>?
    let width: Int32
    let height: Int32

    /// The gray image as RGB (so that colour boxes show).
    init?(_ gray: GrayImage) {
        _ = leptonicaSilenced
        var eight: UnsafeMutablePointer<PIX>? = pixCreate(Int32(gray.width), Int32(gray.height), 8)
        guard eight != nil else { return nil }
        defer { pixDestroy(&eight) }
        // Leptonica keeps 8-bit pixels big-endian inside 32-bit words: copy rows in memory
        // order, then swap to its order.
        let wordsPerLine = Int(pixGetWpl(eight))
        let data = UnsafeMutableRawPointer(pixGetData(eight)!)
        gray.pixels.withUnsafeBytes { source in
            for y in 0..<gray.height {
                (data + y * wordsPerLine * 4).copyMemory(
                    from: source.baseAddress! + y * gray.bytesPerRow, byteCount: gray.width)
            }
        }
        pixEndianByteSwap(eight)
        guard let rgb = pixConvert8To32(eight) else { return nil }
        pix = rgb
        width = Int32(gray.width)
        height = Int32(gray.height)
    }

    deinit { pixDestroy(&pix) }

    func drawBox(_ rect: Rect, width lineWidth: Int32, color: (UInt8, UInt8, UInt8)) {
        guard !rect.isEmpty else { return }
        var box: UnsafeMutablePointer<BOX>? = boxCreate(rect.x, rect.y, rect.width, rect.height)
        guard box != nil else { return }
        defer { boxDestroy(&box) }
        pixRenderBoxArb(pix, box, lineWidth, color.0, color.1, color.2)
    }

    /// `text` on a white strip just above `rect` (below it when there is no room above).
    /// The bitmap font has ASCII only; other characters print as `?`.
    func drawLabel(_ text: String, above rect: Rect, font: BitmapFont, color: UInt32) {
        guard let bmf = font.bmf else { return }
        let ascii = String(text.unicodeScalars.map { $0.isASCII && $0.value >= 32 ? Character($0) : "?" })
        var textWidth: Int32 = 0
        bmfGetStringWidth(bmf, ascii, &textWidth)
        let lineHeight = bmf.pointee.lineheight
        let margin: Int32 = 2
        var top = rect.y - lineHeight - 2 * margin - 1
        if top < 0 { top = rect.maxY + 1 }
        var strip: UnsafeMutablePointer<BOX>? = boxCreate(rect.x, top, textWidth + 2 * margin, lineHeight + 2 * margin)
        if strip != nil { pixSetInRect(pix, strip) }
        boxDestroy(&strip)
        var overflow: Int32 = 0
        var drawnWidth: Int32 = 0
        // y0 is the baseline; capitals and digits rise `baseline2` above it.
        let baseline = top + margin + bmf.pointee.baseline2
        pixSetTextline(pix, bmf, ascii, color, rect.x + margin, baseline, &drawnWidth, &overflow)
    }

    func writePNG(to path: String) -> Bool { pixWritePng(path, pix, 0) == 0 }
}

/// One of Leptonica's built-in bitmap fonts (generated from strings compiled into the
/// library: no font files needed), destroyed in `deinit`.
private final class BitmapFont {
    var bmf: UnsafeMutablePointer<L_BMF>?

    init?(size: Int32) {
        _ = leptonicaSilenced
        guard let bmf = bmfCreate(nil, size) else { return nil }
        self.bmf = bmf
    }

    deinit { bmfDestroy(&bmf) }
}
