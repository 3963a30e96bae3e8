internal import Glibc

/// Four corners of a possibly rotated text box, clockwise from the top-left of the text as it
/// is read (ML Kit's `cornerPoints`), in pixels of the upright image.
///
/// A detector's line box is a rotated rectangle; a word or symbol read from a rectified strip
/// maps back to one. The geometry here works in `Double` and rounds only when it builds
/// `Point`s.
public struct Quad: Sendable, Hashable, Codable {
    public var topLeft: Point
    public var topRight: Point
    public var bottomRight: Point
    public var bottomLeft: Point

    public init(topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// From `corner_points` order; nil unless there are exactly four.
    public init?(_ points: [Point]) {
        guard points.count == 4 else { return nil }
        self.init(topLeft: points[0], topRight: points[1], bottomRight: points[2], bottomLeft: points[3])
    }

    /// The axis-aligned rectangle as a quad.
    public init(_ rect: Rect) {
        self.init(
            topLeft: Point(x: rect.x, y: rect.y), topRight: Point(x: rect.maxX, y: rect.y),
            bottomRight: Point(x: rect.maxX, y: rect.maxY), bottomLeft: Point(x: rect.x, y: rect.maxY))
    }

    public var points: [Point] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The same box read down its left edge, top to bottom — a vertical column's reading
    /// direction: its right edge becomes the top edge (the corners turned one place).
    public var readingDown: Quad {
        Quad(topLeft: topRight, topRight: bottomRight, bottomRight: bottomLeft, bottomLeft: topLeft)
    }

    /// The same box read up its left edge, bottom to top — Latin turned a quarter
    /// counter-clockwise (a book's spine in much of Europe): its left edge becomes the top edge.
    public var readingUp: Quad {
        Quad(topLeft: bottomLeft, topRight: topLeft, bottomRight: topRight, bottomLeft: bottomRight)
    }

    /// The smallest axis-aligned rectangle holding the four corners.
    public var boundingRect: Rect {
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        return Rect(left: xs.min()!, top: ys.min()!, right: xs.max()!, bottom: ys.max()!)
    }

    /// Mean length of the top and bottom edges: the text's length along its baseline.
    public var length: Double { (distance(topLeft, topRight) + distance(bottomLeft, bottomRight)) / 2 }

    /// Mean length of the left and right edges: the text's height across its baseline.
    public var height: Double { (distance(topLeft, bottomLeft) + distance(topRight, bottomRight)) / 2 }

    public var center: (x: Double, y: Double) {
        let xs = points.reduce(0.0) { $0 + Double($1.x) }
        let ys = points.reduce(0.0) { $0 + Double($1.y) }
        return (xs / 4, ys / 4)
    }

    /// The reading direction as a unit vector (along the top and bottom edges).
    public var direction: (x: Double, y: Double) {
        let dx = Double(topRight.x - topLeft.x) + Double(bottomRight.x - bottomLeft.x)
        let dy = Double(topRight.y - topLeft.y) + Double(bottomRight.y - bottomLeft.y)
        let norm = (dx * dx + dy * dy).squareRoot()
        return norm > 0 ? (dx / norm, dy / norm) : (1, 0)
    }

    /// The baseline's angle in degrees, clockwise from the x axis (y points down).
    public var angleDegrees: Double {
        let (dx, dy) = direction
        return atan2Degrees(dy, dx)
    }

    public func mapped(by map: CoordinateMap) -> Quad {
        Quad(
            topLeft: map.map(topLeft), topRight: map.map(topRight), bottomRight: map.map(bottomRight),
            bottomLeft: map.map(bottomLeft))
    }

    private func distance(_ a: Point, _ b: Point) -> Double {
        let dx = Double(a.x) - Double(b.x)
        let dy = Double(a.y) - Double(b.y)
        return (dx * dx + dy * dy).squareRoot()
    }
}

extension Quad {
    /// The share of this quad's area that lies inside `other`, 0…1 (`ConvexPolygon`: exact
    /// for convex quads, as a detector's rotated rectangles and the boxes mapped from a strip
    /// are). 0 when either has no area.
    public func shareInside(_ other: Quad) -> Double {
        let own = points.map(ConvexPolygon.vertex)
        let area = ConvexPolygon.area(own)
        guard area > 0 else { return 0 }
        return min(
            1, ConvexPolygon.area(ConvexPolygon.intersection(own, other.points.map(ConvexPolygon.vertex))) / area)
    }
}

func atan2Degrees(_ y: Double, _ x: Double) -> Double {
    atan2(y, x) * 180 / Double.pi
}

/// An affine map of the plane, `x' = a·x + b·y + tx`, `y' = c·x + d·y + ty`: here, from a
/// rectified line strip's pixels to the upright image's.
public struct AffineMap: Sendable, Hashable, Codable {
    public var a: Double
    public var b: Double
    public var c: Double
    public var d: Double
    public var tx: Double
    public var ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    public static let identity = AffineMap(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + tx, c * x + d * y + ty)
    }

    /// The map after this one: `then.apply(self.apply(p))`.
    public func followed(by then: AffineMap) -> AffineMap {
        AffineMap(
            a: then.a * a + then.b * c, b: then.a * b + then.b * d,
            c: then.c * a + then.d * c, d: then.c * b + then.d * d,
            tx: then.a * tx + then.b * ty + then.tx, ty: then.c * tx + then.d * ty + then.ty)
    }

    /// The inverse map; nil when the map is singular.
    public var inverted: AffineMap? {
        let determinant = a * d - b * c
        guard abs(determinant) > 1e-12 else { return nil }
        let ia = d / determinant
        let ib = -b / determinant
        let ic = -c / determinant
        let id = a / determinant
        return AffineMap(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ib * ty), ty: -(ic * tx + id * ty))
    }

    /// The image of an axis-aligned rectangle: its four corners, in `Quad` order.
    public func map(_ rect: Rect) -> Quad {
        func point(_ x: Int32, _ y: Int32) -> Point {
            let (px, py) = apply(Double(x), Double(y))
            return Point(x: Int32(clamping: Int64(px.rounded())), y: Int32(clamping: Int64(py.rounded())))
        }
        return Quad(
            topLeft: point(rect.x, rect.y), topRight: point(rect.maxX, rect.y),
            bottomRight: point(rect.maxX, rect.maxY), bottomLeft: point(rect.x, rect.maxY))
    }
}

extension CoordinateMap {
    public func map(_ point: Point) -> Point {
        if scale == 1 { return Point(x: point.x + offsetX, y: point.y + offsetY) }
        return Point(
            x: Int32((Double(point.x) * scale).rounded()) + offsetX,
            y: Int32((Double(point.y) * scale).rounded()) + offsetY)
    }
}
