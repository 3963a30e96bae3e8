import Foundation
import LegibleCore
import LegibleDetection
import Testing

/// A synthetic probability map: `value` at every pixel centre inside each rectangle, 0 elsewhere.
struct SyntheticMap {
    var width: Int
    var height: Int
    var values: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        values = [Float](repeating: 0, count: width * height)
    }

    mutating func fill(_ rectangle: RotatedRectangle, value: Float = 0.9) {
        let (u, v) = rectangle.axes
        for y in 0..<height {
            for x in 0..<width {
                let d = PointD(Double(x), Double(y)) - rectangle.center
                if abs((d * u).sum()) <= rectangle.width / 2 && abs((d * v).sum()) <= rectangle.height / 2 {
                    values[y * width + x] = value
                }
            }
        }
    }

    mutating func set(x: Int, y: Int, _ value: Float) { values[y * width + x] = value }

    func boxes(_ parameters: DBParameters = DBParameters()) -> [DBBox] {
        var postprocessor = DBPostprocessor(parameters: parameters)
        return values.withUnsafeBufferPointer { postprocessor.boxes(in: $0, width: width, height: height) }
    }
}

func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

struct PostprocessingTests {
    /// No unclip: the box is the blob's own rectangle (pixel centres, so 1 px shorter per side).
    @Test(arguments: [0.0, 20.0, -20.0, 35.0, -40.0])
    func rotatedRectangleComesBackWithItsAngleAndSize(angle: Double) throws {
        var map = SyntheticMap(width: 240, height: 160)
        let truth = RotatedRectangle(center: PointD(120, 80), width: 120, height: 24, angle: angle * .pi / 180)
        map.fill(truth)
        let boxes = map.boxes(DBParameters(unclipRatio: 0))
        try #require(boxes.count == 1)
        let found = boxes[0].rectangle
        #expect(abs(degrees(found.angle) - angle) < 1.5, "angle \(degrees(found.angle))")
        #expect(abs(found.width - truth.width) <= 2, "width \(found.width)")
        #expect(abs(found.height - truth.height) <= 2, "height \(found.height)")
        #expect(abs(found.center.x - truth.center.x) <= 1 && abs(found.center.y - truth.center.y) <= 1)
        #expect(boxes[0].score > 0.85)
    }

    /// Unclip grows every side by area × ratio / perimeter.
    @Test func unclipGrowsEachSideByTheDBDistance() throws {
        var map = SyntheticMap(width: 200, height: 100)
        map.fill(RotatedRectangle(center: PointD(100, 50), width: 100, height: 20, angle: 0))
        let plain = try #require(map.boxes(DBParameters(unclipRatio: 0)).first?.rectangle)
        let grown = try #require(map.boxes().first?.rectangle)
        let distance = plain.area * 1.5 / (2 * (plain.width + plain.height))
        #expect(abs(grown.width - (plain.width + 2 * distance)) < 1e-6)
        #expect(abs(grown.height - (plain.height + 2 * distance)) < 1e-6)
    }

    /// Corner 0 is the top-left of the text as read, clockwise after it.
    @Test func cornersRunClockwiseFromTheTopLeftOfTheText() throws {
        // A line falling to the right by 20 degrees (y down).
        let falling = RotatedRectangle(center: PointD(100, 100), width: 120, height: 20, angle: 20 * .pi / 180)
        let c = falling.corners
        #expect(c[0].x < c[1].x && c[0].y < c[1].y, "0→1 runs right and down")
        #expect(c[3].y > c[0].y && abs(c[3].x - c[0].x) < 10, "3 is below 0")
        // The same rectangle given by its other side: normalised to the same corners.
        let other = RotatedRectangle(
            center: PointD(100, 100), width: 20, height: 120, angle: (20 + 90) * .pi / 180)
        for (a, b) in zip(other.corners, c) { #expect(abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9) }
        // A tall box keeps the same geometric rule: 0→1 is its short top edge.
        let tall = RotatedRectangle(center: PointD(50, 50), width: 10, height: 80, angle: 0).corners
        #expect(tall[0] == PointD(45, 10) && tall[1] == PointD(55, 10) && tall[2] == PointD(55, 90))
    }

    @Test func blobsAPixelApartAreTwoLinesAndTouchingBlobsAreOne() {
        var apart = SyntheticMap(width: 200, height: 60)
        apart.fill(RotatedRectangle(center: PointD(50, 30), width: 60, height: 12, angle: 0))  // x 20...80
        apart.fill(RotatedRectangle(center: PointD(113, 30), width: 60, height: 12, angle: 0))  // x 83...143
        for y in 0..<60 {  // a one-pixel gap at x 81 and 82 stays below the threshold
            apart.set(x: 81, y: y, 0.2)
            apart.set(x: 82, y: y, 0)
        }
        #expect(apart.boxes().count == 2)

        var touching = SyntheticMap(width: 200, height: 60)
        touching.fill(RotatedRectangle(center: PointD(50, 30), width: 60, height: 12, angle: 0))
        touching.fill(RotatedRectangle(center: PointD(111, 30), width: 60, height: 12, angle: 0))
        let boxes = touching.boxes(DBParameters(unclipRatio: 0))
        #expect(boxes.count == 1)
        #expect(abs((boxes.first?.rectangle.width ?? 0) - 121) <= 2)
    }

    @Test func emptyAndFaintMapsHaveNoBoxes() {
        #expect(SyntheticMap(width: 64, height: 32).boxes().isEmpty)
        #expect(SyntheticMap(width: 0, height: 0).boxes().isEmpty)
        // Above the binarisation threshold but under the box threshold.
        var faint = SyntheticMap(width: 100, height: 50)
        faint.fill(RotatedRectangle(center: PointD(50, 25), width: 60, height: 12, angle: 0), value: 0.5)
        #expect(faint.boxes().isEmpty)
        #expect(faint.boxes(DBParameters(boxThreshold: 0.45)).count == 1)
    }

    @Test func specksAreDropped() {
        var map = SyntheticMap(width: 50, height: 50)
        map.set(x: 10, y: 10, 1)
        map.set(x: 30, y: 30, 1)
        map.set(x: 31, y: 30, 1)
        map.set(x: 30, y: 31, 1)
        map.set(x: 31, y: 31, 1)
        #expect(map.boxes().isEmpty)
    }

    @Test func convexHullAndMinimumRectangleOfASquareTurned45Degrees() {
        var points: [PointD] = [
            PointD(0, 10), PointD(10, 0), PointD(20, 10), PointD(10, 20), PointD(10, 10), PointD(5, 5),
        ]
        var hull: [PointD] = []
        ConvexGeometry.convexHull(&points, into: &hull)
        #expect(hull.count == 4)
        let rectangle = ConvexGeometry.minimumAreaRectangle(ofHull: hull)
        #expect(abs(rectangle.area - 200) < 1e-9)
        #expect(abs(abs(degrees(rectangle.angle)) - 45) < 1e-9)
        #expect(abs(rectangle.center.x - 10) < 1e-9 && abs(rectangle.center.y - 10) < 1e-9)
    }

    @Test func linesMapBackToTheImageAndAreClamped() {
        let box = DBBox(
            rectangle: RotatedRectangle(center: PointD(9.5, 4.5), width: 20, height: 10, angle: 0), score: 0.8)
        // A 20x10 map of a 40x20 image: map pixel centre i lies at image (i + 0.5) x 2.
        let line = DBPostprocessor.lines([box], mapWidth: 20, mapHeight: 10, imageWidth: 40, imageHeight: 20)[0]
        #expect(line.corners == [Point(x: 0, y: 0), Point(x: 40, y: 0), Point(x: 40, y: 20), Point(x: 0, y: 20)])
        #expect(line.score == 0.8)
        let outside = DBBox(
            rectangle: RotatedRectangle(center: PointD(0, 0), width: 20, height: 10, angle: 0), score: 0.8)
        let clamped = DBPostprocessor.lines([outside], mapWidth: 20, mapHeight: 10, imageWidth: 40, imageHeight: 20)
        let inside = clamped[0].corners.allSatisfy { (0...40).contains($0.x) && (0...20).contains($0.y) }
        #expect(inside)
    }

    @Test func inputSizesAreMultiplesOf32WithinTheLongSide() {
        #expect(TextDetector.inputSize(width: 1280, height: 720, maxSide: 960) == (960, 544))
        #expect(TextDetector.inputSize(width: 1280, height: 720, maxSide: 640) == (640, 352))
        #expect(TextDetector.inputSize(width: 1280, height: 720, maxSide: 1280) == (1280, 736))
        #expect(TextDetector.inputSize(width: 640, height: 480, maxSide: 960) == (640, 480))
        #expect(TextDetector.inputSize(width: 100, height: 10, maxSide: 960) == (96, 32))
        #expect(TextDetector.inputSize(width: 720, height: 1280, maxSide: 864) == (480, 864))
        // Small images are scaled up to the minimum long side, never past maxSide.
        #expect(TextDetector.inputSize(width: 206, height: 182, maxSide: 960, minimumLongSide: 640) == (640, 576))
        #expect(TextDetector.inputSize(width: 160, height: 16, maxSide: 960, minimumLongSide: 640) == (640, 64))
        // At most 4 times; a frame under 96 px is not scaled up at all.
        #expect(TextDetector.inputSize(width: 100, height: 50, maxSide: 960, minimumLongSide: 640) == (416, 192))
        #expect(TextDetector.inputSize(width: 16, height: 16, maxSide: 960, minimumLongSide: 640) == (32, 32))
        #expect(TextDetector.inputSize(width: 95, height: 40, maxSide: 960, minimumLongSide: 640) == (96, 32))
        #expect(TextDetector.inputSize(width: 300, height: 100, maxSide: 480, minimumLongSide: 640) == (480, 160))
        #expect(TextDetector.inputSize(width: 1280, height: 720, maxSide: 960, minimumLongSide: 640) == (960, 544))
    }

    @Test func quadOverlapIsPolygonIntersectionOverUnion() {
        let square = DetectedLine(corners: Rect(x: 0, y: 0, width: 10, height: 10).cornerPoints, score: 1)
        let shifted = DetectedLine(corners: Rect(x: 5, y: 0, width: 10, height: 10).cornerPoints, score: 1)
        #expect(abs(square.overlapRatio(shifted) - 50.0 / 150.0) < 1e-9)
        #expect(square.overlapRatio(square) == 1)
        let diamond = DetectedLine(
            corners: [Point(x: 5, y: 0), Point(x: 10, y: 5), Point(x: 5, y: 10), Point(x: 0, y: 5)], score: 1)
        #expect(abs(square.overlapRatio(diamond) - 0.5) < 1e-9)
        let far = DetectedLine(corners: Rect(x: 50, y: 50, width: 10, height: 10).cornerPoints, score: 1)
        #expect(square.overlapRatio(far) == 0)
    }
}
