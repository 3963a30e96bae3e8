import LegibleCore
import LegibleSessions
import Testing

private func candidate(_ goal: String, _ value: String) -> CaptureCandidate {
    CaptureCandidate(goal: goal, value: value, frames: [Rect(x: 1, y: 2, width: 3, height: 4)], confidence: 0.9)
}

@Suite("Capture goals: confirming across results")
struct CaptureTrackerTests {
    @Test func aValueIsCapturedInExactlyOneResultAfterItsConfirmations() {
        var tracker = CaptureTracker(goals: [
            CaptureGoal(name: "phone", target: .entity(.phoneNumber), confirmations: 3)
        ])
        let reports = (0..<5).map { _ in tracker.observe([candidate("phone", "5551234")]) }
        #expect(reports.map { $0.map(\.confirmations) } == [[1], [2], [3], [], []])
        #expect(reports.flatMap { $0 }.filter(\.captured).count == 1)
        #expect(reports[2].first?.captured == true)
        #expect(tracker.captured == ["phone": "5551234"] && tracker.allCaptured)
    }

    @Test func competingValuesAreBothReportedUntilOneWins() {
        var tracker = CaptureTracker(goals: [
            CaptureGoal(name: "phone", target: .entity(.phoneNumber), confirmations: 2)
        ])
        let first = tracker.observe([candidate("phone", "111"), candidate("phone", "222")])
        let second = tracker.observe([candidate("phone", "222"), candidate("phone", "111")])
        #expect(first.map(\.value) == ["111", "222"] && first.allSatisfy { !$0.captured })
        // "222" reaches 2 first in this result's order; the goal is then done.
        #expect(second.map(\.value) == ["222"] && second[0].captured)
        #expect(tracker.observe([candidate("phone", "111")]).isEmpty)
    }

    @Test func readingsMissedInBetweenStillCount() {
        var tracker = CaptureTracker(goals: [
            CaptureGoal(name: "mail", target: .entity(.emailAddress), confirmations: 2)
        ])
        _ = tracker.observe([candidate("mail", "a@b.c")])
        #expect(tracker.observe([]).isEmpty)
        #expect(tracker.observe([candidate("mail", "a@b.c")]).first?.captured == true)
    }

    @Test func theSessionEndsOnlyWhenEveryGoalIsCapturedAndOneAsksForIt() {
        var tracker = CaptureTracker(goals: [
            CaptureGoal(name: "phone", target: .entity(.phoneNumber), confirmations: 1, endWhenCaptured: true),
            CaptureGoal(name: "mail", target: .entity(.emailAddress), confirmations: 1),
        ])
        _ = tracker.observe([candidate("phone", "1")])
        #expect(!tracker.endsSession)
        _ = tracker.observe([candidate("mail", "a@b.c")])
        #expect(tracker.endsSession)
        var quiet = CaptureTracker(goals: [CaptureGoal(name: "mail", target: .entity(.emailAddress), confirmations: 1)])
        _ = quiet.observe([candidate("mail", "a@b.c")])
        #expect(quiet.allCaptured && !quiet.endsSession)
    }

    @Test func updatedGoalsKeepTheirCountsUnlessTheirTargetChanged() {
        var tracker = CaptureTracker(goals: [
            CaptureGoal(name: "phone", target: .entity(.phoneNumber), confirmations: 3),
            CaptureGoal(name: "serial", target: .pattern("A+"), confirmations: 3),
        ])
        _ = tracker.observe([candidate("phone", "1"), candidate("serial", "AA")])
        tracker.replaceGoals(with: [
            CaptureGoal(name: "phone", target: .entity(.phoneNumber), confirmations: 2),
            CaptureGoal(name: "serial", target: .pattern("B+"), confirmations: 3),
        ])
        let next = tracker.observe([candidate("phone", "1"), candidate("serial", "AA")])
        #expect(next.map(\.confirmations) == [2, 1])
        #expect(next[0].captured && !next[1].captured)
    }

    @Test func theValuesCountedPerGoalAreBounded() {
        var other = CaptureTracker(goals: [CaptureGoal(name: "g", target: .pattern("x"), confirmations: 3)])
        _ = other.observe([candidate("g", "often")])
        _ = other.observe([candidate("g", "often")])
        for index in 0..<(CaptureTracker.maxValuesPerGoal * 2) { _ = other.observe([candidate("g", "noise\(index)")]) }
        // The value read twice outlived 32 values read once, so its third reading captures it.
        // A value read once, 31 values ago, was forgotten: read again, it counts 1.
        #expect(other.observe([candidate("g", "noise0")]).first?.confirmations == 1)
        #expect(other.observe([candidate("g", "often")]).first?.captured == true)
    }
}
