public import LegibleCore

/// Counts, across a stream's results, the values read for each capture goal, and says when
/// a value is captured: read in its goal's `confirmations` results. Pure state, driven by
/// the candidates each result brought (`CaptureFinder` finds them).
///
/// - A result reports every candidate it read (with this frame's boxes and the confirmations
///   so far); two values competing for one goal are both reported until one is captured.
/// - A value is reported `captured` in exactly one result, the one that confirmed it; after
///   that its goal is done and reports nothing more.
/// - At most `maxValuesPerGoal` values are counted per goal: past that the value read in the
///   fewest results (the oldest of those) is forgotten.
public struct CaptureTracker: Sendable {
    public static let maxValuesPerGoal = 16

    public private(set) var goals: [CaptureGoal]
    /// Per goal: value → results it was read in, in the order the values were first read.
    private var counts: [String: [(value: String, results: Int)]] = [:]
    /// Goals done, with the value that captured them.
    public private(set) var captured: [String: String] = [:]

    public init(goals: [CaptureGoal]) { self.goals = goals }

    /// Every goal is captured (false with no goals).
    public var allCaptured: Bool { !goals.isEmpty && goals.allSatisfy { captured[$0.name] != nil } }

    /// The session should end now: its goals ask to end when captured, and all are.
    public var endsSession: Bool { allCaptured && goals.contains(where: \.endWhenCaptured) }

    /// UpdateSession's goals: a goal kept with the same target keeps its counts and capture;
    /// a new or changed goal starts afresh; a removed goal is forgotten.
    public mutating func replaceGoals(with newGoals: [CaptureGoal]) {
        let old = Dictionary(goals.map { ($0.name, $0.target) }, uniquingKeysWith: { first, _ in first })
        let kept = Set(newGoals.filter { old[$0.name] == $0.target }.map(\.name))
        counts = counts.filter { kept.contains($0.key) }
        captured = captured.filter { kept.contains($0.key) }
        goals = newGoals
    }

    /// One result's candidates (each goal's value at most once): what the result reports.
    public mutating func observe(_ candidates: [CaptureCandidate]) -> [Capture] {
        var reported: [Capture] = []
        for goal in goals where captured[goal.name] == nil {
            for candidate in candidates where candidate.goal == goal.name {
                let results = count(candidate.value, for: goal.name)
                let done = results >= goal.confirmations
                reported.append(
                    Capture(
                        goal: goal.name, value: candidate.value, frames: candidate.frames,
                        confidence: candidate.confidence, confirmations: results, captured: done))
                if done {
                    captured[goal.name] = candidate.value
                    counts[goal.name] = nil
                    // Values of this goal read later in the same result are not reported.
                    break
                }
            }
        }
        return reported
    }

    /// Adds one result to `value`'s count for `goal`; returns the new count.
    private mutating func count(_ value: String, for goal: String) -> Int {
        var values = counts[goal, default: []]
        if let index = values.firstIndex(where: { $0.value == value }) {
            values[index].results += 1
            counts[goal] = values
            return values[index].results
        }
        if values.count >= Self.maxValuesPerGoal,
            let fewest = values.indices.min(by: { values[$0].results < values[$1].results })
        {
            values.remove(at: fewest)
        }
        values.append((value, 1))
        counts[goal] = values
        return 1
    }
}
