public import LegibleCore
public import LegibleWire

/// Gives every recognized line a `trackID` that stays with it from result to result, counts
/// how long its text has held (`stableFrames`), and says what changed. One per session; pure
/// state.
///
/// A camera client draws boxes over the text it sees and wants to know which box is which from
/// frame to frame, and when a reading has settled: OCR of a live frame flickers, so "the same
/// line, read the same way three times" is what an app waits for before acting on it.
///
/// Matching a new result's lines to the previous result's, in three steps:
/// 1. **Text similarity**: 1 − Levenshtein distance / the longer length, over Unicode scalars
///    (a one-character OCR error in a 20-character line is 0.95). Computed only where needed:
///    lines read exactly as before are found by hashing, and the edit distance runs in a band
///    that stops at the threshold asked for. 40 lines take ~0.06 ms a result when they read
///    the same, ~1–2 ms when every one was misread (release build).
/// 2. **Scene translation**: a hand-held camera pans and shakes, moving every line alike; a
///    100 px pan would leave no box overlapping its old self. Every pair with nearly the same
///    text votes for its displacement; the displacement with the most votes within half a line
///    height wins, and the median of its voters is the scene's shift. Repeated texts do not pull
///    it off: of the four pairings of two "EXIT" signs, two vote for the true shift and the
///    two wrong ones disagree with each other, and a sign leaving the frame leaves its wrong
///    pairing outvoted by every other line.
/// 3. **Greedy one-to-one assignment**: after shifting the previous boxes, a pair can match if
///    its text is similar and its boxes overlap a little, or (a line whose text changed in
///    place, e.g. a price) if its boxes overlap a lot and some other line confirmed the scene.
///    Pairs are taken best score first (text similarity plus overlap, equally weighted), each
///    line at most once, so two lines with the same text keep their own ids by position.
///
/// Track ids start at 1 and are never reused within the tracker's life, also across `reset()`.
/// Only `blocks[i].lines` carry ids; document mode fills them too (paragraphs group the same
/// words), so it is tracked the same way.
public struct LineTracker: Sendable {
    /// Pairs less similar than this do not match on text (0.5: half the characters agree; a
    /// 30-character line with 3 OCR errors is still 0.9, while the 28 pairs of unrelated lines
    /// on the two label fixtures score 0–0.23).
    static let minimumTextSimilarity = 0.5
    /// Pairs at least this similar vote for the scene's shift (0.8: one or two OCR errors in a
    /// short line; higher would leave a shaky frame with every line slightly misread unvoted).
    static let anchorSimilarity = 0.8
    /// A text match needs at least this overlap (intersection over union) after the shift:
    /// enough to reject the same text elsewhere in the frame, little enough for a line that
    /// moved half its height on its own (a 30 px line 3 px off still overlaps ~0.8).
    static let minimumOverlap = 0.1
    /// A line whose text changed needs this much of the smaller box inside the other to keep
    /// its id: it sits where the old one sat. (Not IoU: "SOLD OUT" replacing a line three times
    /// as long lies wholly inside it but overlaps ~0.3.) Below it, new text is a new line.
    static let inPlaceOverlap = 0.5
    /// Displacements within this fraction of a line's height vote together: the line boxes of
    /// one pan differ by OCR's box jitter (a few pixels), not by half a line.
    static let voteToleranceFraction = 0.5
    /// ... but never less than this many pixels, for very small text.
    static let minimumVoteTolerance = 4.0

    private struct Track {
        var id: UInt64
        var text: String
        var scalars: [UInt32]
        var frame: Rect
        var stableFrames: UInt32
    }

    private var tracks: [Track] = []
    private var last: RecognizedText?
    private var nextID: UInt64 = 1
    /// Ids dropped by `reset()`, reported removed by the next `track`.
    private var forgotten: [UInt64] = []

    public init() {}

    /// Assigns `trackID` and `stableFrames` to every line of `text` (`blocks[i].lines`) and
    /// returns what changed since the previous result.
    ///
    /// `stableFrames` is 1 for a new line or one whose text changed, else the previous count
    /// plus one. `changed` names matched lines whose text differs; `added` the new ids, in
    /// reading order; `removed` the previous ids that found no line.
    public mutating func track(_ text: inout RecognizedText) -> Changes {
        var positions: [(block: Int, line: Int)] = []
        var lines: [Track] = []
        for (b, block) in text.blocks.enumerated() {
            for (l, line) in block.lines.enumerated() {
                positions.append((b, l))
                lines.append(
                    Track(
                        id: 0, text: line.text, scalars: line.text.unicodeScalars.map(\.value), frame: line.frame,
                        stableFrames: 1))
            }
        }
        let matches = Self.match(previous: tracks, current: lines)
        var changes = Changes(removed: forgotten)
        forgotten = []
        var matched = [Bool](repeating: false, count: tracks.count)
        for (k, position) in positions.enumerated() {
            if let p = matches[k] {
                matched[p] = true
                lines[k].id = tracks[p].id
                if tracks[p].text == lines[k].text {
                    lines[k].stableFrames = tracks[p].stableFrames == .max ? .max : tracks[p].stableFrames + 1
                } else {
                    changes.changed.append(lines[k].id)
                }
            } else {
                lines[k].id = nextID
                nextID += 1
                changes.added.append(lines[k].id)
            }
            text.blocks[position.block].lines[position.line].trackID = lines[k].id
            text.blocks[position.block].lines[position.line].stableFrames = lines[k].stableFrames
        }
        changes.removed += zip(tracks, matched).filter { !$1 }.map { $0.0.id }
        tracks = lines
        last = text
        return changes
    }

    /// The last result as it was sent (its ids and counts), nil before the first.
    public var lastText: RecognizedText? { last }

    /// The last result again, for a frame skipped as unchanged: every line's `stableFrames`
    /// grows by one, as if it had been read the same way. Nil before the first result.
    public mutating func carryForward() -> RecognizedText? {
        guard var text = last else { return nil }
        for b in text.blocks.indices {
            for l in text.blocks[b].lines.indices {
                let count = text.blocks[b].lines[l].stableFrames
                text.blocks[b].lines[l].stableFrames = count == .max ? .max : count + 1
            }
        }
        for k in tracks.indices where tracks[k].stableFrames < .max { tracks[k].stableFrames += 1 }
        last = text
        return text
    }

    /// True when the last result has at least one line and every line has held its text for at
    /// least `n` results (`FrameResult.stable` for `stable_after` = n).
    public func isStable(after n: Int) -> Bool {
        !tracks.isEmpty && tracks.allSatisfy { Int($0.stableFrames) >= n }
    }

    /// Forgets the lines (a new scene, or options that change what is read). Their ids are not
    /// reused; the next `track` reports them removed, so a client's view stays consistent.
    public mutating func reset() {
        forgotten += tracks.map(\.id)
        tracks = []
        last = nil
    }

    // MARK: Matching

    /// For each current line, the index of the previous line it continues, or nil.
    private static func match(previous: [Track], current: [Track]) -> [Int?] {
        var result = [Int?](repeating: nil, count: current.count)
        guard !previous.isEmpty, !current.isEmpty else { return result }
        var similarity = SimilarityTable(previous: previous, current: current)
        let shift = sceneShift(previous: previous, current: current, similarity: &similarity)

        struct Candidate {
            var score: Double
            var p: Int
            var c: Int
        }
        var candidates: [Candidate] = []
        for p in previous.indices {
            let moved = previous[p].frame.offsetBy(dx: shift.dx, dy: shift.dy)
            for c in current.indices {
                let overlap = moved.overlapRatio(current[c].frame)
                let inPlace = shift.confirmed && moved.containment(current[c].frame) >= inPlaceOverlap
                guard overlap >= minimumOverlap || inPlace else { continue }
                let text = similarity[p, c, atLeast: minimumTextSimilarity]
                if (text >= minimumTextSimilarity && overlap >= minimumOverlap) || inPlace {
                    candidates.append(Candidate(score: text + overlap, p: p, c: c))
                }
            }
        }
        candidates.sort { ($0.score, -$0.p, -$0.c) > ($1.score, -$1.p, -$1.c) }
        var taken = [Bool](repeating: false, count: previous.count)
        for candidate in candidates where !taken[candidate.p] && result[candidate.c] == nil {
            taken[candidate.p] = true
            result[candidate.c] = candidate.p
        }
        return result
    }

    /// How far the whole scene moved between the results, voted by the lines whose text stayed
    /// (nearly) the same; `confirmed` is false when no line voted.
    private static func sceneShift(previous: [Track], current: [Track], similarity: inout SimilarityTable)
        -> (dx: Int32, dy: Int32, confirmed: Bool)
    {
        struct Vote {
            var dx: Double
            var dy: Double
            var tolerance: Double
        }
        var exact: [[UInt32]: [Int]] = [:]
        for c in current.indices { exact[current[c].scalars, default: []].append(c) }
        var votes: [Vote] = []
        for p in previous.indices {
            // Each line votes with the lines it reads most like (several only for repeated text).
            // Most lines of a steady stream read exactly as before; only the others cost a row
            // of edit distances.
            var closest: [Int] = exact[previous[p].scalars] ?? []
            if closest.isEmpty {
                let row = current.indices.map { similarity[p, $0, atLeast: anchorSimilarity] }
                if let best = row.max(), best >= anchorSimilarity {
                    closest = current.indices.filter { row[$0] == best }
                }
            }
            for c in closest {
                let (a, b) = (previous[p].frame, current[c].frame)
                let height = Double(max(a.height, b.height))
                votes.append(
                    Vote(
                        dx: (Double(b.x) + Double(b.width) / 2) - (Double(a.x) + Double(a.width) / 2),
                        dy: (Double(b.y) + Double(b.height) / 2) - (Double(a.y) + Double(a.height) / 2),
                        tolerance: max(minimumVoteTolerance, voteToleranceFraction * height)))
            }
        }
        guard !votes.isEmpty else { return (0, 0, false) }
        // The displacement most votes agree with; ties go to the smaller move.
        func agrees(_ other: Vote, with vote: Vote) -> Bool {
            abs(other.dx - vote.dx) <= vote.tolerance && abs(other.dy - vote.dy) <= vote.tolerance
        }
        var best = (vote: votes[0], support: 0, magnitude: Double.infinity)
        for vote in votes {
            let support = votes.reduce(0) { $0 + (agrees($1, with: vote) ? 1 : 0) }
            let magnitude = vote.dx * vote.dx + vote.dy * vote.dy
            if support > best.support || (support == best.support && magnitude < best.magnitude) {
                best = (vote, support, magnitude)
            }
        }
        let members = votes.filter { agrees($0, with: best.vote) }
        func median(_ values: [Double]) -> Int32 {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            let value = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
            return Int32(value.rounded())
        }
        return (median(members.map(\.dx)), median(members.map(\.dy)), true)
    }

    /// Text similarities of previous × current lines, each computed when first asked for.
    private struct SimilarityTable {
        let previous: [Track]
        let current: [Track]
        private var values: [Double]
        private var bounds: [Double]
        private var buffers = EditDistanceBuffers()

        init(previous: [Track], current: [Track]) {
            self.previous = previous
            self.current = current
            values = [Double](repeating: -1, count: previous.count * current.count)
            bounds = [Double](repeating: 1, count: previous.count * current.count)
        }

        /// The similarity when it is at least `minimum`, else 0. A higher minimum narrows the
        /// edit distance's band and stops it sooner: the anchor search asks for 0.8 across
        /// whole rows, the matching for 0.5 only between boxes that overlap.
        subscript(p: Int, c: Int, atLeast minimum: Double) -> Double {
            mutating get {
                let index = p * current.count + c
                // values[index]: -1 not computed; a value ≥ 0 exact for every minimum down to
                // bounds[index]; 0 means below bounds[index].
                if values[index] < 0 || (values[index] == 0 && minimum < bounds[index]) {
                    values[index] = LineTracker.textSimilarity(
                        previous[p].scalars, current[c].scalars, atLeast: minimum, buffers: &buffers)
                    bounds[index] = minimum
                }
                return values[index] >= minimum - 1e-9 ? values[index] : 0
            }
        }
    }

    /// How alike two lines read: 1 − Levenshtein distance over Unicode scalars / the longer
    /// length; 0 for anything under 0.5, the least a text match needs (the distance is not
    /// computed past that bound).
    public static func textSimilarity(_ a: String, _ b: String) -> Double {
        textSimilarity(a.unicodeScalars.map(\.value), b.unicodeScalars.map(\.value))
    }

    static func textSimilarity(_ a: [UInt32], _ b: [UInt32]) -> Double {
        var buffers = EditDistanceBuffers()
        return textSimilarity(a, b, atLeast: minimumTextSimilarity, buffers: &buffers)
    }

    /// The similarity of `a` and `b` when it is at least `minimum`, else 0.
    fileprivate static func textSimilarity(
        _ a: [UInt32], _ b: [UInt32], atLeast minimum: Double, buffers: inout EditDistanceBuffers
    ) -> Double {
        let longer = max(a.count, b.count)
        if longer == 0 || a == b { return 1 }
        // d ≤ (1 − minimum)·longer, with room for the rounding of 1 − 0.8.
        let limit = Int((1 - minimum) * Double(longer) + 1e-9)
        guard let distance = boundedEditDistance(a, b, limit: limit, buffers: &buffers) else { return 0 }
        return 1 - Double(distance) / Double(longer)
    }

    /// The Levenshtein distance of `a` and `b` when it is at most `limit`, else nil. Only the
    /// diagonal band of width 2·limit+1 is computed, and a row over the limit stops early.
    fileprivate static func boundedEditDistance(
        _ a: [UInt32], _ b: [UInt32], limit: Int, buffers: inout EditDistanceBuffers
    ) -> Int? {
        let (m, n) = (a.count, b.count)
        guard abs(m - n) <= limit else { return nil }
        if m == 0 || n == 0 { return max(m, n) }
        let over = limit + 1
        if buffers.previous.count < n + 1 {
            buffers.previous = [Int](repeating: 0, count: n + 1)
            buffers.current = [Int](repeating: 0, count: n + 1)
        }
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                buffers.previous.withUnsafeMutableBufferPointer { previousRow in
                    buffers.current.withUnsafeMutableBufferPointer { currentRow in
                        var (previous, current) = (previousRow, currentRow)
                        for j in 0...n { previous[j] = min(j, over) }
                        for i in 1...m {
                            let low = max(1, i - limit)
                            let high = min(n, i + limit)
                            current[low - 1] = low == 1 ? min(i, over) : over
                            var rowMinimum = current[low - 1]
                            if low <= high {
                                let character = a[i - 1]
                                for j in low...high {
                                    let substitution = previous[j - 1] + (character == b[j - 1] ? 0 : 1)
                                    let value = min(over, min(substitution, min(previous[j], current[j - 1]) + 1))
                                    current[j] = value
                                    rowMinimum = min(rowMinimum, value)
                                }
                            }
                            if high < n { current[high + 1] = over }
                            if rowMinimum > limit { return nil }
                            swap(&previous, &current)
                        }
                        return previous[n] <= limit ? previous[n] : nil
                    }
                }
            }
        }
    }
}

/// The two rows of the edit distance table, reused from pair to pair.
private struct EditDistanceBuffers {
    var previous: [Int] = []
    var current: [Int] = []
}

extension Rect {
    /// The share of the smaller rectangle that lies inside the other, 0…1.
    fileprivate func containment(_ other: Rect) -> Double {
        let smaller = min(area, other.area)
        return smaller > 0 ? Double(intersection(other).area) / Double(smaller) : 0
    }

    fileprivate func offsetBy(dx: Int32, dy: Int32) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width, height: height)
    }
}
