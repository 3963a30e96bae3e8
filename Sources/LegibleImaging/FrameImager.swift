public import LegibleCore

/// The sizes an image may claim before Legible spends memory on it.
public struct ImageLimits: Sendable, Hashable {
    /// Largest width × height (`--max-pixels`).
    public var maxPixels: Int
    /// Largest side in pixels. Tesseract fails at 32768; 16384 already holds any camera frame.
    public var maxSide: Int

    public init(maxPixels: Int = 40_000_000, maxSide: Int = 16384) {
        self.maxPixels = maxPixels
        self.maxSide = maxSide
    }

    /// Throws `.resourceExhausted` when `width` x `height` is over a limit.
    func check(width: Int, height: Int, what: String) throws(LegibleError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw LegibleError(
                .resourceExhausted, "\(what) of \(width)x\(height) pixels is over the limit of \(maxPixels) pixels")
        }
        if width > maxSide || height > maxSide {
            throw LegibleError(
                .resourceExhausted, "\(what) of \(width)x\(height) pixels has a side over the limit of \(maxSide)")
        }
    }
}

/// A frame's pixels as stored, ready to be turned upright: a decoded gray buffer, or the
/// client's raw buffer itself (no copy is made of it).
public struct StoredImage {
    /// How one stored pixel is laid out.
    enum Layout {
        case gray
        /// 4 bytes per pixel; the byte offsets of red, green and blue.
        case fourByte(red: Int, green: Int, blue: Int)

        var bytesPerPixel: Int {
            if case .gray = self { return 1 }
            return 4
        }
    }

    var storage: [UInt8]
    var layout: Layout
    /// The stored size of what was decoded (smaller than `fullWidth` after a scaled decode).
    public let width: Int
    public let height: Int
    let rowBytes: Int
    /// The size the image claims: coordinates in results are in these pixels, turned upright.
    public let fullWidth: Int
    public let fullHeight: Int
    /// The orientation the frame asked for, or its JPEG's EXIF tag, or up; and which it was.
    public let orientation: Orientation
    public let orientationSource: OrientationSource

    /// Full-image pixels per stored pixel (1 unless decoded scaled down).
    var scale: Double { Double(fullWidth) / Double(width) }

    /// Whether it was decoded smaller than the image claims (a scaled JPEG decode).
    public var isScaledDown: Bool { width < fullWidth }

    /// The upright size in full-image pixels for `orientation`.
    public func uprightFullSize(_ orientation: Orientation) -> (width: Int, height: Int) {
        orientation.uprightSize(width: fullWidth, height: fullHeight)
    }
}

/// An upright gray image made from a stored one, and how its coordinates map into the
/// upright full image.
public struct UprightImage {
    public var image: GrayImage
    /// From `image`'s pixels to the upright full image's.
    public var map: CoordinateMap
    public var orientation: Orientation
    /// Whether `image` holds the imager's reused buffer (to be recycled) rather than a view
    /// of the stored pixels.
    var holdsBuffer: Bool
}

/// decode → orient → crop for one engine: every encoding to the upright gray image Tesseract
/// reads.
///
/// Orientation and crop are folded into the one copy out of the decoded (or raw) buffer,
/// which also converts 4-byte pixels to luma; the Y plane of a 4:2:0 buffer is read in place.
/// Buffers are kept and reused from frame to frame (grown, never shrunk), so a stream of
/// same-sized frames allocates nothing per frame here. Owns the JPEG decompressor; not
/// `Sendable`: one per engine thread.
public final class FrameImager {
    public var limits: ImageLimits
    private let jpeg: JPEGDecoder
    /// JPEG and PNG decode into this.
    private var decoded: [UInt8] = []
    /// Upright (cropped) images are copied into this.
    private var upright: [UInt8] = []

    public init(limits: ImageLimits = ImageLimits()) throws(LegibleError) {
        self.limits = limits
        self.jpeg = try JPEGDecoder()
    }

    // MARK: Load

    /// Checks and decodes `image` into its stored form.
    ///
    /// - Parameters:
    ///   - orientation: the frame's orientation; nil (unspecified) takes a JPEG's EXIF tag,
    ///     else up.
    ///   - decodeScale: JPEG only: decode at one of libjpeg-turbo's scaling factors (1/2,
    ///     3/8, …), which is cheaper than a full decode and a resize.
    /// - Throws: `.invalidArgument` for bytes or geometry that do not make an image (with the
    ///   decoder's reason), `.resourceExhausted` over `limits`, checked from the header or the
    ///   message before any pixel buffer is allocated.
    public func load(
        _ image: EncodedImage, orientation: Orientation? = nil, decodeScale: JPEGDecodeScale = .full
    ) throws(LegibleError) -> StoredImage {
        if image.data.isEmpty { throw LegibleError(.invalidArgument, "empty image: the frame has no data") }
        var source = OrientationSource.client
        var resolved = orientation ?? .up
        if orientation == nil {
            source = .default
            if image.encoding == .jpeg, let exif = ExifOrientation.read(fromJPEG: image.data) {
                resolved = exif
                source = .exif
            }
        }
        switch image.encoding {
        case .jpeg:
            return try loadJPEG(image.data, orientation: resolved, source: source, decodeScale: decodeScale)
        case .png:
            let size = try PNGReader.decodeGray(
                image.data, maxPixels: limits.maxPixels, maxSide: limits.maxSide, into: &decoded)
            return StoredImage(
                storage: decoded, layout: .gray, width: size.width, height: size.height, rowBytes: size.width,
                fullWidth: size.width, fullHeight: size.height, orientation: resolved, orientationSource: source)
        case .gray8, .rgba8, .bgra8, .nv12, .i420:
            let (layout, rowBytes) = try Self.checkRaw(image, limits: limits)
            return StoredImage(
                storage: image.data, layout: layout, width: image.width, height: image.height, rowBytes: rowBytes,
                fullWidth: image.width, fullHeight: image.height, orientation: resolved, orientationSource: source)
        }
    }

    private func loadJPEG(
        _ data: [UInt8], orientation: Orientation, source: OrientationSource, decodeScale: JPEGDecodeScale
    ) throws(LegibleError) -> StoredImage {
        let result = data.withUnsafeBufferPointer { bytes -> Result<StoredImage, LegibleError> in
            do throws(LegibleError) {
                let full = try jpeg.header(bytes)
                try limits.check(width: full.width, height: full.height, what: "JPEG")
                let size = JPEGDecoder.scaledSize(width: full.width, height: full.height, scale: decodeScale)
                Self.ensure(&decoded, count: size.width * size.height)
                try decoded.withUnsafeMutableBufferPointer { (out) throws(LegibleError) in
                    try jpeg.decodeGray(bytes, width: size.width, height: size.height, into: out.baseAddress!)
                }
                return .success(
                    StoredImage(
                        storage: decoded, layout: .gray, width: size.width, height: size.height, rowBytes: size.width,
                        fullWidth: full.width, fullHeight: full.height, orientation: orientation,
                        orientationSource: source))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Validates a raw buffer's geometry against its length (overflow-safe) before anything
    /// reads it; returns how its pixels are laid out and the first plane's row length.
    static func checkRaw(_ image: EncodedImage, limits: ImageLimits) throws(LegibleError) -> (StoredImage.Layout, Int) {
        let name = image.encoding.description.uppercased()
        let width = image.width
        let height = image.height
        guard width > 0, height > 0 else {
            throw LegibleError(
                .invalidArgument, "\(name) image needs a width and height above 0, got \(width)x\(height)")
        }
        try limits.check(width: width, height: height, what: "\(name) image")
        let chromaRows = (height + 1) / 2
        let layout: StoredImage.Layout
        let minimumStride: Int
        switch image.encoding {
        case .gray8, .i420:
            layout = .gray
            minimumStride = width
        case .nv12:
            layout = .gray
            minimumStride = (width + 1) / 2 * 2  // CbCr pairs: an odd width still needs whole pairs
        case .rgba8:
            layout = .fourByte(red: 0, green: 1, blue: 2)
            minimumStride = 4 * width
        case .bgra8:
            layout = .fourByte(red: 2, green: 1, blue: 0)
            minimumStride = 4 * width
        case .jpeg, .png:
            preconditionFailure("\(name) is not a raw encoding")
        }
        let stride = image.stride == 0 ? minimumStride : image.stride
        guard stride >= minimumStride else {
            throw LegibleError(
                .invalidArgument,
                "\(name) stride \(stride) is less than the \(minimumStride) bytes a row of \(width) pixels needs")
        }
        let planes: [(rows: Int, rowBytes: Int)]
        switch image.encoding {
        case .nv12: planes = [(height, stride), (chromaRows, stride)]
        case .i420: planes = [(height, stride), (chromaRows, (stride + 1) / 2), (chromaRows, (stride + 1) / 2)]
        default: planes = [(height, stride)]
        }
        var needed = 0
        var overflow = false
        for plane in planes {
            let (bytes, o1) = plane.rows.multipliedReportingOverflow(by: plane.rowBytes)
            let (sum, o2) = needed.addingReportingOverflow(bytes)
            needed = sum
            overflow = overflow || o1 || o2
        }
        guard !overflow, image.data.count >= needed else {
            throw LegibleError(
                .invalidArgument,
                "\(name) buffer has \(image.data.count) bytes; \(width)x\(height) with stride \(stride) needs "
                    + (overflow ? "more than fits in memory" : "\(needed)"))
        }
        return (layout, stride)
    }

    // MARK: Render

    /// The part of `stored`'s upright image inside `region` (upright full-image pixels;
    /// nil = all of it), as gray, in the reused upright buffer.
    ///
    /// - Throws: `.invalidArgument` when `region` lies wholly outside the image.
    public func render(_ stored: StoredImage, orientation: Orientation, region: Rect? = nil) throws(LegibleError)
        -> UprightImage
    {
        let full = stored.uprightFullSize(orientation)
        let bounds = Rect(x: 0, y: 0, width: Int32(full.width), height: Int32(full.height))
        var crop = bounds
        if let region {
            crop = region.intersection(bounds)
            if crop.isEmpty {
                throw LegibleError(
                    .invalidArgument,
                    "region of interest \(region) lies outside the upright \(full.width)x\(full.height) image")
            }
        }
        // The crop in stored (possibly scaled) upright pixels.
        let scale = stored.scale
        let decodedSize = orientation.uprightSize(width: stored.width, height: stored.height)
        // `scale` is the stored width's; the height's differs a little (each side is rounded up
        // on its own), and after a quarter turn it applies to the other axis. So a region at the
        // far edge of a scaled decode could start past the decoded pixels and the copy would
        // read outside them (Tests/Fixtures/fuzz-regressions/imaging): the start is kept inside.
        let left = min(decodedSize.width - 1, scale == 1 ? Int(crop.x) : Int(Double(crop.x) / scale))
        let top = min(decodedSize.height - 1, scale == 1 ? Int(crop.y) : Int(Double(crop.y) / scale))
        let right = scale == 1 ? Int(crop.maxX) : min(decodedSize.width, Int((Double(crop.maxX) / scale).rounded(.up)))
        let bottom =
            scale == 1 ? Int(crop.maxY) : min(decodedSize.height, Int((Double(crop.maxY) / scale).rounded(.up)))
        let width = max(1, right - left)
        let height = max(1, bottom - top)
        let map = CoordinateMap(
            offsetX: Int32((Double(left) * scale).rounded()), offsetY: Int32((Double(top) * scale).rounded()),
            scale: scale)

        // A gray image that is already upright and whole is read where it is.
        if case .gray = stored.layout, orientation == .up, left == 0, top == 0, width == stored.width,
            height == stored.height
        {
            let image = GrayImage(width: width, height: height, bytesPerRow: stored.rowBytes, pixels: stored.storage)
            return UprightImage(image: image, map: map, orientation: orientation, holdsBuffer: false)
        }
        Self.ensure(&upright, count: width * height)
        // Move the buffer out so the image owns it uniquely (no copy-on-write copy); `recycle`
        // gives it back.
        var pixels: [UInt8] = []
        swap(&pixels, &upright)
        pixels.withUnsafeMutableBufferPointer { out in
            stored.storage.withUnsafeBufferPointer { source in
                Self.copy(
                    from: source.baseAddress!, stored: stored, orientation: orientation, left: left, top: top,
                    width: width, height: height, into: out.baseAddress!)
            }
        }
        let image = GrayImage(width: width, height: height, bytesPerRow: width, pixels: pixels)
        return UprightImage(image: image, map: map, orientation: orientation, holdsBuffer: true)
    }

    /// Hands an image's buffer back for the next frame.
    public func recycle(_ image: consuming UprightImage) {
        if image.holdsBuffer, image.image.pixels.count > upright.count {
            upright = image.image.pixels
        }
    }

    /// Copies the upright window (`left`, `top`, `width` x `height`) out of the stored pixels.
    ///
    /// The stored pixel under upright (x, y) is an affine function of x and y (see
    /// `Orientation.storedPixelMap`), so each output row is one walk through the source with a
    /// constant step: +1 for up, -1 for a mirror, ±rowBytes for the quarter turns.
    static func copy(
        from source: UnsafePointer<UInt8>, stored: StoredImage, orientation: Orientation, left: Int, top: Int,
        width: Int, height: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        let pixelBytes = stored.layout.bytesPerPixel
        let m = orientation.storedPixelMap(storedWidth: stored.width, storedHeight: stored.height)
        let rowBytes = stored.rowBytes
        let stepX = m.x.perX * pixelBytes + m.y.perX * rowBytes
        let stepY = m.x.perY * pixelBytes + m.y.perY * rowBytes
        let origin = m.x.origin * pixelBytes + m.y.origin * rowBytes + left * stepX + top * stepY
        switch stored.layout {
        case .gray where stepX == 1:
            for row in 0..<height {
                (out + row * width).update(from: source + origin + row * stepY, count: width)
            }
        case .gray:
            if stepY == 1 || stepY == -1 {
                // Quarter turns walk the source down a column per output row; going by tiles
                // of 8 output rows reads 8 neighbouring source bytes per cache line fetched.
                copyTransposed(
                    source: source, origin: origin, stepX: stepX, stepY: stepY, width: width, height: height, out: out)
            } else {
                for row in 0..<height {
                    var offset = origin + row * stepY
                    let line = out + row * width
                    for x in 0..<width {
                        line[x] = source[offset]
                        offset += stepX
                    }
                }
            }
        case .fourByte(let red, let green, let blue):
            // ITU-R BT.601 luma with Pillow's integer weights, so RGBA, BGRA and a client's own
            // `convert("L")` agree to the byte.
            for row in 0..<height {
                var offset = origin + row * stepY
                let line = out + row * width
                for x in 0..<width {
                    let pixel = source + offset
                    let luma = Int(pixel[red]) * 19595 + Int(pixel[green]) * 38470 + Int(pixel[blue]) * 7471 + 0x8000
                    line[x] = UInt8(truncatingIfNeeded: luma >> 16)
                    offset += stepX
                }
            }
        }
    }

    /// The quarter-turn copy of a gray plane, by tiles of 8 output rows.
    private static func copyTransposed(
        source: UnsafePointer<UInt8>, origin: Int, stepX: Int, stepY: Int, width: Int, height: Int,
        out: UnsafeMutablePointer<UInt8>
    ) {
        let tile = 8
        var rowStart = 0
        while rowStart < height {
            let rows = min(tile, height - rowStart)
            var offset = origin + rowStart * stepY
            for x in 0..<width {
                var o = offset
                for r in 0..<rows {
                    out[(rowStart + r) * width + x] = source[o]
                    o += stepY
                }
                offset += stepX
            }
            rowStart += rows
        }
    }

    private static func ensure(_ buffer: inout [UInt8], count: Int) {
        if buffer.count < count {
            buffer = [UInt8](repeating: 0, count: count)
        }
    }

    // MARK: Convenience

    /// Decodes `image` and turns it upright in one call (tools and tests).
    public func decode(
        _ image: EncodedImage, maxPixels: Int, maxSide: Int? = nil, orientation: Orientation? = nil
    ) throws(LegibleError) -> GrayImage {
        let saved = limits
        limits.maxPixels = maxPixels
        defer { limits = saved }
        let stored = try load(
            image, orientation: orientation, decodeScale: maxSide.map { .fitting(maxSide: $0) } ?? .full)
        return try render(stored, orientation: stored.orientation).image
    }
}

@available(*, unavailable, message: "a FrameImager belongs to one engine thread")
extension FrameImager: Sendable {}
