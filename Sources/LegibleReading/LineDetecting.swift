public import LegibleCore
internal import LegibleDetection

/// Finds the text lines of an upright gray image: the PP-OCRv4 detector, or a fake in tests.
///
/// Like a recognizer, a detector holds a native handle used by one thread: implementations
/// are not `Sendable` and live on their engine's thread.
public protocol LineDetecting: AnyObject {
    /// The lines found, each a rotated box in `image`'s pixels with the detector's score;
    /// ACCURATE may look harder (a larger input) than FAST. `scalesUp`: a small image may be
    /// enlarged for the detector (not when it was decoded smaller than the frame, nor padded).
    func detectLines(in image: GrayImage, level: RecognitionLevel, scalesUp: Bool) throws(LegibleError)
        -> [DetectedLine]
}

extension LineDetecting {
    /// The lines of `image`, found in a copy with a replicated border when the image is thin
    /// (a region of interest around one line): a detector scales its input to sides that are
    /// multiples of 32, which squashes a 50 px high strip, and it finds text that touches the
    /// image's edge poorly. Quads come back in `image`'s pixels, clamped to it.
    public func detectLines(
        inPadded image: GrayImage, level: RecognitionLevel = .fast, scalesUp: Bool = true, minimumSide: Int = 160,
        border: Int = 16
    )
        throws(LegibleError) -> [DetectedLine]
    {
        guard image.width > 0, image.height > 0, min(image.width, image.height) < minimumSide else {
            return try detectLines(in: image, level: level, scalesUp: scalesUp)
        }
        let padX = max(border, (minimumSide - image.width + 1) / 2)
        let padY = max(border, (minimumSide - image.height + 1) / 2)
        let width = image.width + 2 * padX
        let height = image.height + 2 * padY
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let sourceRow = min(max(y - padY, 0), image.height - 1) * image.bytesPerRow
            for x in 0..<width {
                pixels[y * width + x] = image.pixels[sourceRow + min(max(x - padX, 0), image.width - 1)]
            }
        }
        let padded = GrayImage(width: width, height: height, bytesPerRow: width, pixels: pixels)
        // Padding adds no detail: whether to enlarge is the unpadded image's size's call.
        let enlarges = scalesUp && max(image.width, image.height) >= TextDetector.minimumUpscaledSide
        return try detectLines(in: padded, level: level, scalesUp: enlarges).map { line in
            let corners = line.corners.map { corner in
                Point(
                    x: min(Int32(image.width), max(0, corner.x - Int32(padX))),
                    y: min(Int32(image.height), max(0, corner.y - Int32(padY))))
            }
            return DetectedLine(corners: corners, score: line.score)
        }
    }
}
