/// One text line a detector found: an oriented box, before anything is read in it.
///
/// `corners` are the 4 corners of a rotated rectangle in the pixels of the image that was
/// searched (origin top-left, y down), clockwise from the top-left of the text as read:
///
/// ```
///   0 ───────────── 1        a line tilted up to ±45° from horizontal: 0→1 is its top edge,
///   │  TEXT LINE    │        running in reading direction (left to right)
///   3 ───────────── 2
/// ```
///
/// The rule is geometric, so it holds for any box: the edge 0→1 is the rectangle's side that is
/// closest to horizontal (its angle with the x axis in (-45°, 45°]), pointing right, and 3 lies
/// below 0. A box taller than wide is therefore a vertical line whose 0→1 edge is its short top
/// edge: vertical CJK reads from 0 down to 3, and Latin turned by 90° reads along 1→2 or 3→0 —
/// a detector cannot tell which, the reader of the line decides. Nor can it tell upright text
/// from text upside down (a 180° classifier does). Corners are clamped to the image, so a box
/// cut by the image's edge may not be quite rectangular.
public struct DetectedLine: Sendable, Equatable, Codable {
    /// 4 points, clockwise from the text's top-left.
    public var corners: [Point]
    /// The detector's box score, 0…1: DB's mean text probability inside the box.
    public var score: Float

    public init(corners: [Point], score: Float) {
        precondition(corners.count == 4, "a detected line has 4 corners")
        self.corners = corners
        self.score = score
    }

    /// The corners as a `Quad` (top-left, top-right, bottom-right, bottom-left).
    public var quad: Quad { Quad(corners)! }

    /// The smallest axis-aligned rectangle holding the 4 corners.
    public var boundingRect: Rect {
        let xs = corners.map(\.x)
        let ys = corners.map(\.y)
        return Rect(left: xs.min()!, top: ys.min()!, right: xs.max()!, bottom: ys.max()!)
    }

    /// The length of the top edge (0→1) and of the left edge (0→3), in pixels.
    public var size: (width: Double, height: Double) {
        func distance(_ a: Point, _ b: Point) -> Double {
            let dx = Double(b.x - a.x)
            let dy = Double(b.y - a.y)
            return (dx * dx + dy * dy).squareRoot()
        }
        return (distance(corners[0], corners[1]), distance(corners[0], corners[3]))
    }

    /// Intersection over union of the two quads as polygons (both convex), 0…1: how trackers
    /// and tests match lines, which axis-aligned boxes would do poorly for tilted lines.
    public func overlapRatio(_ other: DetectedLine) -> Double {
        ConvexPolygon.intersectionOverUnion(corners.map(ConvexPolygon.vertex), other.corners.map(ConvexPolygon.vertex))
    }
}

/// Area and clipping of convex polygons given as vertex lists (either winding).
public enum ConvexPolygon {
    public static func vertex(_ point: Point) -> SIMD2<Double> { SIMD2(Double(point.x), Double(point.y)) }

    /// The polygon's area (shoelace formula), whatever its winding.
    public static func area(_ polygon: [SIMD2<Double>]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var twice = 0.0
        for i in polygon.indices {
            let a = polygon[i]
            let b = polygon[(i + 1) % polygon.count]
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }

    /// The part of `subject` inside the convex polygon `clip` (Sutherland–Hodgman).
    public static func intersection(_ subject: [SIMD2<Double>], _ clip: [SIMD2<Double>]) -> [SIMD2<Double>] {
        guard subject.count >= 3, clip.count >= 3 else { return [] }
        // Orient the clip polygon so that its inside is on the left of every edge.
        var twice = 0.0
        for i in clip.indices {
            let a = clip[i]
            let b = clip[(i + 1) % clip.count]
            twice += a.x * b.y - b.x * a.y
        }
        let edges = twice >= 0 ? clip : clip.reversed()
        var output = subject
        for i in edges.indices where !output.isEmpty {
            let a = edges[i]
            let b = edges[(i + 1) % edges.count]
            func side(_ p: SIMD2<Double>) -> Double { (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) }
            let input = output
            output = []
            for j in input.indices {
                let current = input[j]
                let previous = input[(j + input.count - 1) % input.count]
                let currentSide = side(current)
                let previousSide = side(previous)
                if currentSide >= 0 {
                    if previousSide < 0 {
                        output.append(previous + (current - previous) * (previousSide / (previousSide - currentSide)))
                    }
                    output.append(current)
                } else if previousSide >= 0 {
                    output.append(previous + (current - previous) * (previousSide / (previousSide - currentSide)))
                }
            }
        }
        return output
    }

    /// Intersection over union of two convex polygons, 0…1 (0 when either has no area).
    public static func intersectionOverUnion(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> Double {
        let shared = area(intersection(a, b))
        let total = area(a) + area(b) - shared
        return total > 0 ? shared / total : 0
    }
}
