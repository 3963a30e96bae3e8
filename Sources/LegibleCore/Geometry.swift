/// A rectangle in pixels of the upright full image; origin top-left, y down.
public struct Rect: Sendable, Hashable, CustomStringConvertible, Codable {
    public var x: Int32
    public var y: Int32
    public var width: Int32
    public var height: Int32

    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The rectangle from its left, top, right and bottom edges (right and bottom exclusive).
    public init(left: Int32, top: Int32, right: Int32, bottom: Int32) {
        self.init(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var maxX: Int32 { x + width }
    public var maxY: Int32 { y + height }
    /// The centre, rounded down.
    public var midX: Int32 { x + width / 2 }
    public var midY: Int32 { y + height / 2 }
    public var area: Int64 { isEmpty ? 0 : Int64(width) * Int64(height) }

    /// The corners clockwise from the top-left, as `corner_points` carries them.
    public var cornerPoints: [Point] {
        [Point(x: x, y: y), Point(x: maxX, y: y), Point(x: maxX, y: maxY), Point(x: x, y: maxY)]
    }

    /// The overlap of two rectangles; empty when they do not meet.
    ///
    /// The far edges are added up in 64 bits: a client's region of interest may hold any
    /// Int32, and `maxX` of one near Int32.max traps (found by fuzz/imaging, see
    /// Tests/Fixtures/fuzz-regressions/imaging). The overlap's own edges lie between the two
    /// rectangles' edges, so they fit in Int32 again.
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(Int64(x) + Int64(width), Int64(other.x) + Int64(other.width))
        let bottom = min(Int64(y) + Int64(height), Int64(other.y) + Int64(other.height))
        return Rect(
            x: left, y: top, width: Int32(clamping: max(0, right - Int64(left))),
            height: Int32(clamping: max(0, bottom - Int64(top))))
    }

    /// The smallest rectangle holding both; an empty side is ignored.
    public func union(_ other: Rect) -> Rect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        return Rect(
            left: min(x, other.x), top: min(y, other.y), right: max(maxX, other.maxX), bottom: max(maxY, other.maxY))
    }

    /// Intersection over union, 0…1.
    public func overlapRatio(_ other: Rect) -> Double {
        let shared = intersection(other).area
        let total = area + other.area - shared
        return total > 0 ? Double(shared) / Double(total) : 0
    }

    public var description: String { "(\(x),\(y) \(width)x\(height))" }
}

/// A point in pixels of the upright full image.
public struct Point: Sendable, Hashable, Codable {
    public var x: Int32
    public var y: Int32
    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }
}

/// Maps coordinates of the image a recognizer read (a scaled, cropped copy) into the upright
/// full image: first scale by `scale`, then shift by the crop's origin.
public struct CoordinateMap: Sendable, Hashable, Codable {
    public var offsetX: Int32
    public var offsetY: Int32
    /// Full-image pixels per read pixel (1 unless the image was decoded scaled down).
    public var scale: Double

    public init(offsetX: Int32 = 0, offsetY: Int32 = 0, scale: Double = 1) {
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.scale = scale
    }

    public var isIdentity: Bool { offsetX == 0 && offsetY == 0 && scale == 1 }

    public func map(_ rect: Rect) -> Rect {
        if scale == 1 {
            return Rect(x: rect.x + offsetX, y: rect.y + offsetY, width: rect.width, height: rect.height)
        }
        func scaled(_ v: Int32) -> Int32 { Int32((Double(v) * scale).rounded()) }
        return Rect(
            left: scaled(rect.x) + offsetX, top: scaled(rect.y) + offsetY, right: scaled(rect.maxX) + offsetX,
            bottom: scaled(rect.maxY) + offsetY)
    }
}
