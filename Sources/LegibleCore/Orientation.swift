/// The orientation algebra: each of the 8 EXIF values is an optional left-right mirror of
/// the stored pixels followed by a clockwise turn of 0, 90, 180 or 270 degrees.
///
/// ```
///   value  name            mirror  then turn clockwise   upright size
///     1    up                no          0               W x H
///     2    upMirrored        yes         0               W x H
///     3    down              no        180               W x H
///     4    downMirrored      yes       180               W x H
///     5    leftMirrored      yes       270               H x W
///     6    right             no         90               H x W
///     7    rightMirrored     yes        90               H x W
///     8    left              no        270               H x W
/// ```
extension Orientation {
    /// The clockwise turn (after the mirror, if any) that makes the stored pixels upright.
    public var clockwiseDegrees: Int {
        switch self {
        case .up, .upMirrored: 0
        case .right, .rightMirrored: 90
        case .down, .downMirrored: 180
        case .left, .leftMirrored: 270
        }
    }

    /// Whether the stored pixels are mirrored left to right before the turn.
    public var isMirrored: Bool {
        switch self {
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: true
        case .up, .down, .left, .right: false
        }
    }

    public init(clockwiseDegrees degrees: Int, mirrored: Bool) {
        switch (((degrees % 360) + 360) % 360, mirrored) {
        case (90, false): self = .right
        case (180, false): self = .down
        case (270, false): self = .left
        case (0, true): self = .upMirrored
        case (90, true): self = .rightMirrored
        case (180, true): self = .downMirrored
        case (270, true): self = .leftMirrored
        default:
            precondition(degrees % 90 == 0, "orientations turn by quarter turns, not \(degrees) degrees")
            self = .up
        }
    }

    /// Whether width and height trade places.
    public var swapsAxes: Bool { clockwiseDegrees % 180 != 0 }

    /// The upright size of a stored image of `width` x `height`.
    public func uprightSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// This orientation, then a further clockwise turn of `degrees` of the upright image.
    public func turned(clockwiseBy degrees: Int) -> Orientation {
        Orientation(clockwiseDegrees: clockwiseDegrees + degrees, mirrored: isMirrored)
    }

    /// Maps a point on pixel edges of the upright image (a rectangle's corner) back to the
    /// stored image of `width` x `height` (stored size).
    public func storedPoint(x: Int, y: Int, storedWidth width: Int, storedHeight height: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (width - x, y)
        case .down: (width - x, height - y)
        case .downMirrored: (x, height - y)
        case .leftMirrored: (y, x)
        case .right: (y, height - x)
        case .rightMirrored: (width - y, height - x)
        case .left: (width - y, x)
        }
    }

    /// Maps the stored pixel that lands on upright pixel (x, y): an affine map whose
    /// coefficients the copy loops step by. Returns (origin, d/dx, d/dy) for the stored x and y.
    public func storedPixelMap(storedWidth width: Int, storedHeight height: Int)
        -> (x: (origin: Int, perX: Int, perY: Int), y: (origin: Int, perX: Int, perY: Int))
    {
        switch self {
        case .up: ((0, 1, 0), (0, 0, 1))
        case .upMirrored: ((width - 1, -1, 0), (0, 0, 1))
        case .down: ((width - 1, -1, 0), (height - 1, 0, -1))
        case .downMirrored: ((0, 1, 0), (height - 1, 0, -1))
        case .leftMirrored: ((0, 0, 1), (0, 1, 0))
        case .right: ((0, 0, 1), (height - 1, -1, 0))
        case .rightMirrored: ((width - 1, 0, -1), (height - 1, -1, 0))
        case .left: ((width - 1, 0, -1), (0, 1, 0))
        }
    }
}

/// Where the orientation applied to a frame came from (`legible.v1.OrientationSource`).
public enum OrientationSource: Int, Sendable, Hashable, CaseIterable, Codable {
    /// `Frame.orientation`.
    case client = 1
    /// The JPEG's EXIF tag (the frame's orientation was unspecified).
    case exif = 2
    /// Nothing said: up.
    case `default` = 3
    /// `auto_orientation`: Tesseract's OSD turned the image further.
    case osd = 4
}

/// How a frame's stored pixels were made upright (`legible.v1.AppliedOrientation`).
public struct AppliedOrientation: Sendable, Hashable, Codable {
    public var orientation: Orientation
    public var source: OrientationSource
    /// When OSD ran: the clockwise turn it found the client-oriented image to need.
    public var osdRotationDegrees: Int
    /// When OSD ran: Tesseract's orientation confidence (0 when it found too little text).
    public var osdConfidence: Float

    public init(
        orientation: Orientation, source: OrientationSource, osdRotationDegrees: Int = 0, osdConfidence: Float = 0
    ) {
        self.orientation = orientation
        self.source = source
        self.osdRotationDegrees = osdRotationDegrees
        self.osdConfidence = osdConfidence
    }
}
