/// A rectangle in pixels of the upright full image; origin top-left, y down.
public struct Rect: Sendable, Hashable, CustomStringConvertible {
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
    public var area: Int64 { isEmpty ? 0 : Int64(width) * Int64(height) }

    /// The corners clockwise from the top-left, as `corner_points` carries them.
    public var cornerPoints: [Point] {
        [Point(x: x, y: y), Point(x: maxX, y: y), Point(x: maxX, y: maxY), Point(x: x, y: maxY)]
    }

    /// The overlap of two rectangles; empty when they do not meet.
    public func intersection(_ other: Rect) -> Rect {
        Rect(left: max(x, other.x), top: max(y, other.y), right: min(maxX, other.maxX), bottom: min(maxY, other.maxY))
    }

    /// The smallest rectangle holding both; an empty side is ignored.
    public func union(_ other: Rect) -> Rect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        return Rect(left: min(x, other.x), top: min(y, other.y), right: max(maxX, other.maxX), bottom: max(maxY, other.maxY))
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
public struct Point: Sendable, Hashable {
    public var x: Int32
    public var y: Int32
    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }
}
