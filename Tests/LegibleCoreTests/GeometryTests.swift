import Testing

@testable import LegibleCore

@Suite("Geometry")
struct GeometryTests {
    @Test func cornerPointsRunClockwiseFromTopLeft() {
        let rect = Rect(x: 10, y: 20, width: 30, height: 40)
        #expect(
            rect.cornerPoints == [Point(x: 10, y: 20), Point(x: 40, y: 20), Point(x: 40, y: 60), Point(x: 10, y: 60)])
    }

    @Test func overlap() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.overlapRatio(a) == 1)
        #expect(a.overlapRatio(Rect(x: 5, y: 0, width: 10, height: 10)) == 50.0 / 150.0)
        #expect(a.intersection(Rect(x: 20, y: 20, width: 5, height: 5)).isEmpty)
        #expect(a.union(Rect(x: 20, y: 20, width: 5, height: 5)) == Rect(x: 0, y: 0, width: 25, height: 25))
    }

    /// A client's region of interest can hold any Int32; its far edge must not overflow.
    @Test func intersectionAtTheEdgesOfInt32() {
        let image = Rect(x: 0, y: 0, width: 640, height: 480)
        let far = Rect(x: .max - 5, y: .max, width: .max, height: 10)
        #expect(far.intersection(image).isEmpty)
        #expect(image.intersection(far).isEmpty)
        let huge = Rect(x: .min, y: -10, width: .max, height: .max)
        #expect(huge.intersection(image).isEmpty)  // its right edge is -1
        let wide = Rect(x: -100, y: 10, width: .max, height: .max)
        #expect(wide.intersection(image) == Rect(x: 0, y: 10, width: 640, height: 470))
    }

    @Test func shareOfAQuadInsideAnother() {
        let square = Quad(Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(ConvexPolygon.area(square.points.map(ConvexPolygon.vertex)) == 100)
        #expect(square.shareInside(square) == 1)
        #expect(square.shareInside(Quad(Rect(x: 5, y: 0, width: 10, height: 10))) == 0.5)
        #expect(square.shareInside(Quad(Rect(x: 20, y: 0, width: 10, height: 10))) == 0)
        #expect(square.shareInside(Quad(Rect(x: -5, y: -5, width: 30, height: 30))) == 1)
        // A diamond standing on the square's centre, its corners on the square's edges' midpoints:
        // the square is half inside it, the diamond wholly inside the square; either corner order.
        let diamond = Quad(
            topLeft: Point(x: 5, y: 0), topRight: Point(x: 10, y: 5), bottomRight: Point(x: 5, y: 10),
            bottomLeft: Point(x: 0, y: 5))
        #expect(abs(square.shareInside(diamond) - 0.5) < 1e-9)
        #expect(abs(square.shareInside(diamond.readingUp) - 0.5) < 1e-9)
        let counterClockwise = Quad(
            topLeft: diamond.topLeft, topRight: diamond.bottomLeft, bottomRight: diamond.bottomRight,
            bottomLeft: diamond.topRight)
        #expect(abs(square.shareInside(counterClockwise) - 0.5) < 1e-9)
        #expect(diamond.shareInside(square) == 1)
        // No area: nothing inside.
        let flat = Quad(Rect(x: 0, y: 0, width: 10, height: 0))
        #expect(flat.shareInside(square) == 0 && square.shareInside(flat) == 0)
    }

    @Test func errorDescribesCodeAndMessage() {
        #expect(LegibleError(.invalidArgument, "bad").description == "INVALID_ARGUMENT: bad")
        #expect(LegibleError.Code(rawValue: 42).name == "CODE_42")
    }
}
