import Testing

@testable import LegibleCore

@Suite("Geometry")
struct GeometryTests {
    @Test func cornerPointsRunClockwiseFromTopLeft() {
        let rect = Rect(x: 10, y: 20, width: 30, height: 40)
        #expect(rect.cornerPoints == [Point(x: 10, y: 20), Point(x: 40, y: 20), Point(x: 40, y: 60), Point(x: 10, y: 60)])
    }

    @Test func overlap() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.overlapRatio(a) == 1)
        #expect(a.overlapRatio(Rect(x: 5, y: 0, width: 10, height: 10)) == 50.0 / 150.0)
        #expect(a.intersection(Rect(x: 20, y: 20, width: 5, height: 5)).isEmpty)
        #expect(a.union(Rect(x: 20, y: 20, width: 5, height: 5)) == Rect(x: 0, y: 0, width: 25, height: 25))
    }

    @Test func errorDescribesCodeAndMessage() {
        #expect(LegibleError(.invalidArgument, "bad").description == "INVALID_ARGUMENT: bad")
        #expect(LegibleError.Code(rawValue: 42).name == "CODE_42")
    }
}
