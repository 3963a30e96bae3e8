internal import Glibc
public import LegibleCore

/// The thresholds of DB's post-processing (PaddleOCR's `DBPostProcess` names in brackets).
public struct DBParameters: Sendable, Hashable {
    /// A map pixel is text when its probability is above this (`thresh`).
    public var binarizeThreshold: Float
    /// A box is kept when the mean probability inside it reaches this (`box_thresh`).
    public var boxThreshold: Float
    /// The box grows by area × ratio / perimeter on every side (`unclip_ratio`): the model is
    /// trained on text shrunk by that much.
    public var unclipRatio: Double
    /// Boxes with a side shorter than this, in map pixels, are dropped (`min_size`; after
    /// growing, shorter than this + 2).
    public var minimumSide: Double
    /// At most this many components become boxes (`max_candidates`), in raster order.
    public var maximumCandidates: Int

    public init(
        binarizeThreshold: Float = 0.3, boxThreshold: Float = 0.6, unclipRatio: Double = 1.5,
        minimumSide: Double = 3, maximumCandidates: Int = 1000
    ) {
        self.binarizeThreshold = binarizeThreshold
        self.boxThreshold = boxThreshold
        self.unclipRatio = unclipRatio
        self.minimumSide = minimumSide
        self.maximumCandidates = maximumCandidates
    }
}

/// A box found in the probability map, in the map's pixels.
public struct DBBox: Sendable, Equatable {
    /// The grown (unclipped) rectangle. Coordinates are pixel centres: map pixel (i, j) is the
    /// point (i, j), and the rectangle runs through the centres of its extreme pixels before it
    /// grows, as PaddleOCR's contours do.
    public var rectangle: RotatedRectangle
    /// The mean probability inside the rectangle before it grew.
    public var score: Float

    public init(rectangle: RotatedRectangle, score: Float) {
        self.rectangle = rectangle
        self.score = score
    }
}

/// DB's post-processing, as PaddleOCR describes it, on a probability map (the detector's
/// 1×1×H×W output), in pure Swift so that it can be tested on synthetic maps:
///
/// 1. binarize at `binarizeThreshold`;
/// 2. 8-connected components (what OpenCV's contours outline);
/// 3. per component the minimum-area rotated rectangle of its pixels (convex hull, rotating
///    calipers); dropped when a side is under `minimumSide`;
/// 4. score = mean probability of the map inside that rectangle; dropped under `boxThreshold`;
/// 5. unclip: every side moves out by D = area × `unclipRatio` / perimeter. PaddleOCR offsets
///    the polygon with round joins and takes the minimum-area rectangle again; for a rectangle
///    that rectangle is exactly the one grown by D on every side, so it is computed directly;
/// 6. dropped when a side is then under `minimumSide` + 2.
///
/// Keeps its buffers (visited marks, fill stack, row extents, points) from call to call: after
/// the first frame of a size, a frame allocates only the returned array.
public struct DBPostprocessor {
    public var parameters: DBParameters

    /// 0 = not yet seen, 1 = seen (text or not).
    private var visited: [UInt8] = []
    private var stack: [Int32] = []
    /// Per map row: the leftmost and rightmost pixel of the component being filled.
    private var rowMinimum: [Int32] = []
    private var rowMaximum: [Int32] = []
    private var points: [PointD] = []
    private var hull: [PointD] = []

    public init(parameters: DBParameters = DBParameters()) {
        self.parameters = parameters
    }

    /// The boxes in a `width` × `height` map of probabilities (row-major), in raster order of
    /// their components' first pixel.
    public mutating func boxes(in map: UnsafeBufferPointer<Float>, width: Int, height: Int) -> [DBBox] {
        precondition(map.count >= width * height)
        guard width > 0, height > 0 else { return [] }
        let count = width * height
        if visited.count != count {
            visited = [UInt8](repeating: 0, count: count)
        } else {
            visited.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, count) }
        }
        if rowMinimum.count != height {
            rowMinimum = [Int32](repeating: .max, count: height)
            rowMaximum = [Int32](repeating: .min, count: height)
        }
        let threshold = parameters.binarizeThreshold
        var result: [DBBox] = []
        var candidates = 0
        for start in 0..<count where visited[start] == 0 {
            visited[start] = 1
            guard map[start] > threshold else { continue }
            candidates += 1
            if candidates > parameters.maximumCandidates { break }
            let (top, bottom) = fill(from: start, in: map, width: width, height: height)
            if let box = box(rows: top...bottom, in: map, width: width, height: height) {
                result.append(box)
            }
        }
        return result
    }

    /// Marks the 8-connected component of text pixels holding `start`, recording each row's
    /// extent; returns its first and last row.
    private mutating func fill(from start: Int, in map: UnsafeBufferPointer<Float>, width: Int, height: Int) -> (
        Int, Int
    ) {
        let threshold = parameters.binarizeThreshold
        var top = start / width
        var bottom = top
        stack.removeAll(keepingCapacity: true)
        stack.append(Int32(start))
        while let index = stack.popLast().map(Int.init) {
            let y = index / width
            let x = index - y * width
            rowMinimum[y] = min(rowMinimum[y], Int32(x))
            rowMaximum[y] = max(rowMaximum[y], Int32(x))
            top = min(top, y)
            bottom = max(bottom, y)
            for ny in max(0, y - 1)...min(height - 1, y + 1) {
                for nx in max(0, x - 1)...min(width - 1, x + 1) {
                    let neighbour = ny * width + nx
                    if visited[neighbour] == 0 {
                        // Background pixels are marked too: each is tested once per frame.
                        visited[neighbour] = 1
                        if map[neighbour] > threshold { stack.append(Int32(neighbour)) }
                    }
                }
            }
        }
        return (top, bottom)
    }

    /// The component's box (its rows' extents are in `rowMinimum`/`rowMaximum`, reset here),
    /// or nil when DB's rules drop it.
    private mutating func box(rows: ClosedRange<Int>, in map: UnsafeBufferPointer<Float>, width: Int, height: Int)
        -> DBBox?
    {
        // The hull of a component is the hull of each row's two end pixels.
        points.removeAll(keepingCapacity: true)
        for y in rows where rowMinimum[y] <= rowMaximum[y] {
            points.append(PointD(Double(rowMinimum[y]), Double(y)))
            if rowMaximum[y] != rowMinimum[y] { points.append(PointD(Double(rowMaximum[y]), Double(y))) }
            rowMinimum[y] = .max
            rowMaximum[y] = .min
        }
        ConvexGeometry.convexHull(&points, into: &hull)
        let rectangle = ConvexGeometry.minimumAreaRectangle(ofHull: hull)
        let parameters = parameters
        guard min(rectangle.width, rectangle.height) >= parameters.minimumSide else { return nil }
        let score = Self.meanProbability(inside: rectangle, map: map, width: width, height: height)
        guard score >= parameters.boxThreshold else { return nil }
        let perimeter = 2 * (rectangle.width + rectangle.height)
        let grown = rectangle.grown(by: rectangle.area * parameters.unclipRatio / perimeter)
        guard min(grown.width, grown.height) >= parameters.minimumSide + 2 else { return nil }
        return DBBox(rectangle: grown, score: score)
    }

    /// The mean probability of the map pixels whose centres lie inside `rectangle` (its edges
    /// included), row by row: on each row the inside is one interval of x.
    static func meanProbability(
        inside rectangle: RotatedRectangle, map: UnsafeBufferPointer<Float>, width: Int, height: Int
    ) -> Float {
        let (u, v) = rectangle.axes
        let halfWidth = rectangle.width / 2 + 1e-6
        let halfHeight = rectangle.height / 2 + 1e-6
        let corners = rectangle.corners
        let top = max(0, Int(corners.map(\.y).min()!.rounded(.down)))
        let bottom = min(height - 1, Int(corners.map(\.y).max()!.rounded(.up)))
        guard top <= bottom else { return 0 }
        var sum: Double = 0
        var pixels = 0
        for y in top...bottom {
            let dy = Double(y) - rectangle.center.y
            // |(x - cx)·a + dy·b| ≤ half, for (a, b) = u and = v: each an interval of x.
            var low = -Double.infinity
            var high = Double.infinity
            func narrow(_ axis: PointD, _ half: Double) {
                let offset = dy * axis.y
                if abs(axis.x) < 1e-12 {
                    if abs(offset) > half {
                        low = .infinity
                        high = -.infinity
                    }
                } else {
                    let a = (-half - offset) / axis.x
                    let b = (half - offset) / axis.x
                    low = max(low, min(a, b))
                    high = min(high, max(a, b))
                }
            }
            narrow(u, halfWidth)
            narrow(v, halfHeight)
            guard low <= high else { continue }
            let first = max(0, Int((low + rectangle.center.x).rounded(.up)))
            let last = min(width - 1, Int((high + rectangle.center.x).rounded(.down)))
            guard first <= last else { continue }
            let row = y * width
            for x in first...last { sum += Double(map[row + x]) }
            pixels += last - first + 1
        }
        return pixels > 0 ? Float(sum / Double(pixels)) : 0
    }

    /// The boxes as detected lines in the pixels of an `imageWidth` × `imageHeight` image that
    /// the `mapWidth` × `mapHeight` map was computed from (scaled to it, each axis on its own).
    ///
    /// Map pixel centre i lies at image coordinate (i + 0.5) × scale; corners are rounded to
    /// the nearest pixel and clamped to 0…width and 0…height (Rect's exclusive far edges).
    public static func lines(
        _ boxes: [DBBox], mapWidth: Int, mapHeight: Int, imageWidth: Int, imageHeight: Int
    ) -> [DetectedLine] {
        let scaleX = Double(imageWidth) / Double(mapWidth)
        let scaleY = Double(imageHeight) / Double(mapHeight)
        return boxes.map { box in
            let corners = box.rectangle.corners.map { corner in
                Point(
                    x: Int32(min(Double(imageWidth), max(0, ((corner.x + 0.5) * scaleX).rounded()))),
                    y: Int32(min(Double(imageHeight), max(0, ((corner.y + 0.5) * scaleY).rounded()))))
            }
            return DetectedLine(corners: corners, score: box.score)
        }
    }
}
