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

    @Test func errorDescribesCodeAndMessage() {
        #expect(LegibleError(.invalidArgument, "bad").description == "INVALID_ARGUMENT: bad")
        #expect(LegibleError.Code(rawValue: 42).name == "CODE_42")
    }
}
