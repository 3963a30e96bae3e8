internal import Glibc

/// A point with `Double` coordinates (the post-processing works between pixels).
public typealias PointD = SIMD2<Double>

/// A rotated rectangle: centre, side lengths and the direction of its `width` side.
///
/// Normalised so that `angle` lies in (-π/4, π/4]: `width` runs along the side that is closest
/// to horizontal and `height` along the other, whichever is longer. `corners` then follow
/// `DetectedLine`'s rule (clockwise from the top-left, 0→1 the near-horizontal top edge).
public struct RotatedRectangle: Sendable, Equatable {
    public var center: PointD
    public var width: Double
    public var height: Double
    /// Radians from the x axis to the `width` side, y down (a positive angle runs down-right).
    public var angle: Double

    /// A rectangle from any two perpendicular sides; normalises the angle as described above.
    public init(center: PointD, width: Double, height: Double, angle: Double) {
        var angle = angle
        var width = width
        var height = height
        // First into (-π/2, π/2] (turning a side by π leaves the rectangle as it is) ...
        while angle > .pi / 2 { angle -= .pi }
        while angle <= -.pi / 2 { angle += .pi }
        // ... then into (-π/4, π/4] by naming the other side the width.
        if angle > .pi / 4 {
            angle -= .pi / 2
            swap(&width, &height)
        } else if angle <= -.pi / 4 {
            angle += .pi / 2
            swap(&width, &height)
        }
        self.center = center
        self.width = width
        self.height = height
        self.angle = angle
    }

    /// Unit vector along the width side (pointing right) and along the height side (pointing down).
    public var axes: (u: PointD, v: PointD) {
        let u = PointD(cos(angle), sin(angle))
        return (u, PointD(-u.y, u.x))
    }

    /// Top-left, top-right, bottom-right, bottom-left.
    public var corners: [PointD] {
        let (u, v) = axes
        let halfU = u * (width / 2)
        let halfV = v * (height / 2)
        return [center - halfU - halfV, center + halfU - halfV, center + halfU + halfV, center - halfU + halfV]
    }

    public var area: Double { width * height }

    /// The same rectangle with every side moved outward by `distance`.
    public func grown(by distance: Double) -> RotatedRectangle {
        var copy = self
        copy.width += 2 * distance
        copy.height += 2 * distance
        return copy
    }
}

/// The convex hull and minimum-area enclosing rectangle of a point set.
public enum ConvexGeometry {
    /// The convex hull, counter-clockwise in a y-up frame (clockwise on screen), without
    /// collinear points (Andrew's monotone chain). `points` is sorted in place; `hull` is
    /// cleared and filled, so that callers can keep both buffers from frame to frame.
    public static func convexHull(_ points: inout [PointD], into hull: inout [PointD]) {
        hull.removeAll(keepingCapacity: true)
        points.sort { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard points.count > 2 else {
            hull.append(contentsOf: points)
            if hull.count == 2 && hull[0] == hull[1] { hull.removeLast() }
            return
        }
        func cross(_ o: PointD, _ a: PointD, _ b: PointD) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        for point in points {  // lower chain
            while hull.count >= 2 && cross(hull[hull.count - 2], hull[hull.count - 1], point) <= 0 {
                hull.removeLast()
            }
            hull.append(point)
        }
        let lowerCount = hull.count + 1
        for point in points.reversed().dropFirst() {  // upper chain
            while hull.count >= lowerCount && cross(hull[hull.count - 2], hull[hull.count - 1], point) <= 0 {
                hull.removeLast()
            }
            hull.append(point)
        }
        hull.removeLast()  // the first point again
    }

    /// The minimum-area rectangle around a convex polygon (rotating calipers: one side of the
    /// best rectangle lies on a hull edge; for each edge three calipers find the extreme points
    /// along it and across it, each moving forward only, so O(n) over the hull).
    ///
    /// A hull of one point or a segment gives a rectangle with a zero side.
    public static func minimumAreaRectangle(ofHull hull: [PointD]) -> RotatedRectangle {
        let n = hull.count
        if n == 0 { return RotatedRectangle(center: .zero, width: 0, height: 0, angle: 0) }
        if n == 1 { return RotatedRectangle(center: hull[0], width: 0, height: 0, angle: 0) }
        if n == 2 {
            let d = hull[1] - hull[0]
            return RotatedRectangle(
                center: (hull[0] + hull[1]) / 2, width: (d * d).sum().squareRoot(), height: 0, angle: atan2(d.y, d.x))
        }
        func dot(_ a: PointD, _ b: PointD) -> Double { (a * b).sum() }
        var best: (area: Double, rectangle: RotatedRectangle)?
        var far = 1  // farthest from the edge, across it
        var right = 1  // farthest along the edge
        var left = 0  // farthest against the edge
        for i in 0..<n {
            let a = hull[i]
            let edge = hull[(i + 1) % n] - a
            let length = (edge * edge).sum().squareRoot()
            guard length > 0 else { continue }
            let u = edge / length
            let normal = PointD(-u.y, u.x)  // into the hull for this winding
            var steps = 0
            while steps < n && dot(hull[(far + 1) % n] - a, normal) >= dot(hull[far] - a, normal) {
                far = (far + 1) % n
                steps += 1
            }
            steps = 0
            while steps < n && dot(hull[(right + 1) % n] - a, u) >= dot(hull[right] - a, u) {
                right = (right + 1) % n
                steps += 1
            }
            if i == 0 { left = far }
            steps = 0
            while steps < n && dot(hull[(left + 1) % n] - a, u) <= dot(hull[left] - a, u) {
                left = (left + 1) % n
                steps += 1
            }
            let minU = dot(hull[left] - a, u)
            let maxU = dot(hull[right] - a, u)
            let across = dot(hull[far] - a, normal)
            let area = (maxU - minU) * abs(across)
            if best == nil || area < best!.area {
                let center = a + u * ((minU + maxU) / 2) + normal * (across / 2)
                best = (
                    area,
                    RotatedRectangle(center: center, width: maxU - minU, height: abs(across), angle: atan2(u.y, u.x))
                )
            }
        }
        return best?.rectangle ?? RotatedRectangle(center: hull[0], width: 0, height: 0, angle: 0)
    }
}
