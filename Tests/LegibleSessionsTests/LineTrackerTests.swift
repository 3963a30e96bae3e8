import LegibleCore
import LegibleSessions
import LegibleWire
import Testing

/// SplitMix64: seeded, so a failing sequence is the same on every run.

/// One line of a made-up result.
private struct Line {
    var text: String
    var frame: Rect
    init(_ text: String, _ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
        self.text = text
        self.frame = Rect(x: x, y: y, width: width, height: height)
    }
    func moved(_ dx: Int32, _ dy: Int32) -> Line { Line(text, frame.x + dx, frame.y + dy, frame.width, frame.height) }
}

/// A text-mode result: one block per group of lines.
private func result(_ blocks: [[Line]]) -> RecognizedText {
    RecognizedText(
        text: blocks.flatMap { $0 }.map(\.text).joined(separator: "\n"),
        blocks: blocks.map { lines in
            TextBlock(
                text: lines.map(\.text).joined(separator: "\n"),
                frame: lines.reduce(Rect(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.frame) },
                confidence: 0.9, recognizedLanguages: ["en"],
                lines: lines.map {
                    TextLine(text: $0.text, frame: $0.frame, confidence: 0.9, recognizedLanguages: ["en"], elements: [])
                })
        }, imageWidth: 1280, imageHeight: 720)
}

private func result(_ lines: [Line]) -> RecognizedText { result([lines]) }

/// The lines of Tests/Fixtures/camera-720p.jpg (its .json truth).
private let label = [
    Line("Fresh Organic Coffee Beans 500g", 120, 99, 933, 55),
    Line("Best before 12/2026 Lot 48213", 120, 218, 623, 34),
    Line("Price $14.99 per bag", 120, 307, 417, 39),
    Line("Store in a cool dry place", 120, 406, 412, 33),
    Line("Roasted in Portland, Oregon", 120, 486, 477, 33),
]

extension LineTracker {
    /// Tracks `text` and returns the ids and stable counts of its lines, with the changes.
    fileprivate mutating func run(_ text: RecognizedText) -> (ids: [UInt64], stable: [UInt32], changes: Changes) {
        var text = text
        let changes = track(&text)
        return (text.lines.map(\.trackID), text.lines.map(\.stableFrames), changes)
    }
}

@Suite("Line tracker")
struct LineTrackerTests {
    @Test func firstResultAddsEveryLineFromOne() {
        var tracker = LineTracker()
        let first = tracker.run(result([Array(label[0..<2]), Array(label[2...])]))
        #expect(first.ids == [1, 2, 3, 4, 5])
        #expect(first.stable == [1, 1, 1, 1, 1])
        #expect(first.changes == Changes(added: [1, 2, 3, 4, 5]))
    }

    @Test func jitterAndOccasionalMisreadsKeepEveryID() {
        var tracker = LineTracker()
        var rng = SplitMix64(seed: 5)
        _ = tracker.run(result(label))
        var misreads = 0
        for frame in 1...60 {
            let lines = label.map { line -> Line in
                var line = line.moved(Int32.random(in: -3...3, using: &rng), Int32.random(in: -3...3, using: &rng))
                if Int.random(in: 0..<6, using: &rng) == 0 {
                    // One character misread, as OCR does on a shaky frame.
                    var characters = Array(line.text)
                    characters[Int.random(in: 0..<characters.count, using: &rng)] = "#"
                    line.text = String(characters)
                    misreads += 1
                }
                return line
            }
            let step = tracker.run(result(lines))
            #expect(step.ids == [1, 2, 3, 4, 5], "frame \(frame)")
            #expect(step.changes.added.isEmpty && step.changes.removed.isEmpty, "frame \(frame)")
        }
        #expect(misreads > 5)
    }

    @Test func textChangeIsChangedAndRestartsStableFrames() {
        var tracker = LineTracker()
        _ = tracker.run(result(label))
        _ = tracker.run(result(label))
        var lines = label
        lines[2].text = "Price $12.49 per bag"
        let step = tracker.run(result(lines))
        #expect(step.ids == [1, 2, 3, 4, 5])
        #expect(step.changes == Changes(changed: [3]))
        #expect(step.stable == [3, 3, 1, 3, 3])
        #expect(tracker.run(result(lines)).stable == [4, 4, 2, 4, 4])
    }

    @Test func textReplacedInPlaceKeepsItsIDWhenTheSceneIsConfirmed() {
        var tracker = LineTracker()
        _ = tracker.run(result(label))
        var lines = label
        lines[1].text = "SOLD OUT"
        lines[1].frame.width = 180
        let step = tracker.run(result(lines))
        #expect(step.ids == [1, 2, 3, 4, 5])
        #expect(step.changes == Changes(changed: [2]))
    }

    @Test func lineLeavingIsRemoved() {
        var tracker = LineTracker()
        _ = tracker.run(result(label))
        let step = tracker.run(result([label[0], label[1], label[3], label[4]]))
        #expect(step.ids == [1, 2, 4, 5])
        #expect(step.changes == Changes(removed: [3]))
    }

    @Test func newLineIsAddedWithAFreshIDAndIDsAreNeverReused() {
        var tracker = LineTracker()
        _ = tracker.run(result(label))
        _ = tracker.run(result(Array(label.dropLast())))
        let step = tracker.run(result(label + [Line("Net wt 17.6 oz", 120, 560, 250, 33)]))
        #expect(step.ids == [1, 2, 3, 4, 6, 7])
        #expect(step.changes == Changes(added: [6, 7]))
        #expect(step.stable == [3, 3, 3, 3, 1, 1])
    }

    @Test(arguments: [(Int32(120), Int32(0)), (-130, 0), (0, 120), (110, -90)])
    func wholeScenePanKeepsIDs(dx: Int32, dy: Int32) {
        var tracker = LineTracker()
        _ = tracker.run(result(label))
        var lines = label.map { $0.moved(dx, dy) }
        lines[0].text = "Fresh Organic Coffee Beans 5OOg"  // and a misread on the way
        let step = tracker.run(result(lines))
        #expect(step.ids == [1, 2, 3, 4, 5])
        #expect(step.changes == Changes(changed: [1]))
        // Panning back, in two steps, with jitter.
        let back = tracker.run(result(label.map { $0.moved(dx / 2 + 2, dy / 2 - 1) }))
        #expect(back.ids == [1, 2, 3, 4, 5])
        #expect(tracker.run(result(label)).ids == [1, 2, 3, 4, 5])
    }

    @Test func panWithALineLeavingTheFrame() {
        var tracker = LineTracker()
        _ = tracker.run(result(label))
        // 150 px up: the first line (y 99) has left the frame; a new one came in at the bottom.
        let lines = label.dropFirst().map { $0.moved(0, -150) } + [Line("Fair trade certified", 120, 560, 350, 33)]
        let step = tracker.run(result(lines))
        #expect(step.ids == [2, 3, 4, 5, 6])
        #expect(step.changes == Changes(added: [6], removed: [1]))
    }

    @Test func twoIdenticalTextsKeepTheirOwnIDsByPosition() {
        var tracker = LineTracker()
        let left = Line("EXIT", 100, 300, 120, 40)
        let right = Line("EXIT", 900, 300, 120, 40)
        #expect(tracker.run(result([left, right])).ids == [1, 2])
        // Jitter, and the reading order flipped by the OCR.
        #expect(tracker.run(result([right.moved(2, -3), left.moved(-3, 2)])).ids == [2, 1])
        // The whole scene pans 120 px: only the two signs vote, and still each keeps its id.
        #expect(tracker.run(result([left.moved(120, 5), right.moved(120, 5)])).ids == [1, 2])
        #expect(tracker.run(result([left.moved(-60, 0), right.moved(-60, 0)])).ids == [1, 2])
        // One leaves: the one that stayed in place keeps its id.
        let step = tracker.run(result([right.moved(-60, 0)]))
        #expect(step.ids == [2])
        #expect(step.changes == Changes(removed: [1]))
    }

    @Test func sceneCutRemovesAndAddsEverything() {
        var tracker = LineTracker()
        _ = tracker.run(result(label))
        // Another label; lines where the old ones were, none with a similar text.
        let other = [
            Line("SALE 30% OFF", 120, 99, 700, 60),
            Line("Model X200", 120, 220, 560, 60),
            Line("Aisle 7", 120, 330, 300, 60),
        ]
        let step = tracker.run(result(other))
        #expect(step.ids == [6, 7, 8])
        #expect(step.changes == Changes(added: [6, 7, 8], removed: [1, 2, 3, 4, 5]))
        #expect(step.stable == [1, 1, 1])
    }

    @Test func singleLineRewrittenIsANewLine() {
        // With nothing else in view, an unrelated text in the same place is not confirmed to be
        // the same line: it is a new one.
        var tracker = LineTracker()
        _ = tracker.run(result([Line("OPEN", 500, 300, 200, 80)]))
        let step = tracker.run(result([Line("CLOSED", 490, 300, 260, 80)]))
        #expect(step.changes == Changes(added: [2], removed: [1]))
    }

    @Test func stableFramesCountAndIsStable() {
        var tracker = LineTracker()
        #expect(!tracker.isStable(after: 1))
        #expect(tracker.run(result(label)).stable == [1, 1, 1, 1, 1])
        #expect(tracker.isStable(after: 1) && !tracker.isStable(after: 2))
        _ = tracker.run(result(label))
        #expect(tracker.run(result(label)).stable == [3, 3, 3, 3, 3])
        #expect(tracker.isStable(after: 3) && !tracker.isStable(after: 4))
        var lines = label
        lines[4].text = "Roasted in Portland, 0regon"
        _ = tracker.run(result(lines))
        #expect(!tracker.isStable(after: 2))
        _ = tracker.run(result(lines))
        #expect(tracker.isStable(after: 2) && !tracker.isStable(after: 3))
        // Nothing in view is never stable.
        _ = tracker.run(result([Line]()))
        #expect(!tracker.isStable(after: 0) && !tracker.isStable(after: 1))
    }

    @Test func carryForwardCountsTheSkippedFrame() {
        var tracker = LineTracker()
        #expect(tracker.carryForward() == nil)
        _ = tracker.run(result(label))
        _ = tracker.run(result(label))
        #expect(!tracker.isStable(after: 3))
        let carried = tracker.carryForward()
        #expect(carried?.lines.map(\.trackID) == [1, 2, 3, 4, 5])
        #expect(carried?.lines.map(\.stableFrames) == [3, 3, 3, 3, 3])
        #expect(carried?.text == result(label).text)
        #expect(tracker.isStable(after: 3))
        // The next recognition continues from the carried count.
        #expect(tracker.run(result(label)).stable == [4, 4, 4, 4, 4])
    }

    @Test func resetKeepsCountingAndReportsTheOldLinesRemoved() {
        var tracker = LineTracker()
        _ = tracker.run(result(label))
        tracker.reset()
        #expect(tracker.carryForward() == nil && !tracker.isStable(after: 1))
        let step = tracker.run(result(label))
        #expect(step.ids == [6, 7, 8, 9, 10])
        #expect(step.changes == Changes(added: [6, 7, 8, 9, 10], removed: [1, 2, 3, 4, 5]))
        #expect(tracker.run(result(label)).changes == Changes())
    }

    @Test func documentModeLinesAreTrackedToo() {
        // Document mode: blocks carry paragraphs (words) and still fill their lines.
        func document(dx: Int32) -> RecognizedText {
            var text = result([Array(label[0..<3]), Array(label[3...])])
            for b in text.blocks.indices {
                text.blocks[b].lines = text.blocks[b].lines.map { line in
                    var line = line
                    line.frame.x += dx
                    return line
                }
                text.blocks[b].paragraphs = [
                    TextParagraph(
                        text: text.blocks[b].text, frame: text.blocks[b].frame, confidence: 0.9,
                        recognizedLanguages: ["en"],
                        words: [])
                ]
            }
            return text
        }
        var tracker = LineTracker()
        #expect(tracker.run(document(dx: 0)).ids == [1, 2, 3, 4, 5])
        let step = tracker.run(document(dx: 140))
        #expect(step.ids == [1, 2, 3, 4, 5])
        #expect(step.stable == [2, 2, 2, 2, 2])
    }

    @Test func textSimilarityIsTheNormalizedEditDistance() {
        #expect(LineTracker.textSimilarity("EXIT", "EXIT") == 1)
        #expect(LineTracker.textSimilarity("", "") == 1)
        #expect(LineTracker.textSimilarity("kitten", "sitting") == 1 - 3.0 / 7)
        #expect(LineTracker.textSimilarity("Price $14.99", "Price $12.49") == 1 - 2.0 / 12)
        #expect(LineTracker.textSimilarity("OPEN", "CLOSED") == 0)  // under 0.5
        #expect(LineTracker.textSimilarity("價格", "價格 ") == 1 - 1.0 / 3)
    }

    @Test func boundedEditDistanceAgreesWithTheFullTable() {
        func levenshtein(_ a: [Character], _ b: [Character]) -> Int {
            var row = Array(0...b.count)
            for i in 1...max(1, a.count) where !a.isEmpty {
                var next = [i] + [Int](repeating: 0, count: b.count)
                for j in 1...max(1, b.count) where !b.isEmpty {
                    next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                }
                row = next
            }
            return row[b.count]
        }
        var rng = SplitMix64(seed: 11)
        let alphabet = Array("abc ")
        for _ in 0..<2000 {
            let a = (0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            var b = a
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where !b.isEmpty: b.remove(at: Int.random(in: 0..<b.count, using: &rng))
                case 1 where !b.isEmpty:
                    b[Int.random(in: 0..<b.count, using: &rng)] = alphabet.randomElement(using: &rng)!
                default: b.insert(alphabet.randomElement(using: &rng)!, at: Int.random(in: 0...b.count, using: &rng))
                }
            }
            let longer = max(a.count, b.count)
            let expected = longer == 0 ? 1 : 1 - Double(levenshtein(a, b)) / Double(longer)
            let got = LineTracker.textSimilarity(String(a), String(b))
            #expect(got == (expected >= 0.5 ? expected : 0), "\(String(a)) / \(String(b))")
        }
    }
}
