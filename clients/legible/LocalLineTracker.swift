import LegibleCore
import LegibleWire

/// Changes between consecutive results worked out on the client, for a server that sends no
/// `FrameResult.changes` (one without the session tracker). `stream` uses the server's
/// changes and track ids whenever a result carries them.
///
/// Deliberately plain: each line is matched to the previous result's line whose box overlaps
/// it most (intersection over union at least 0.3, one to one, best pairs first); a match with
/// the same text is unchanged, with other text changed; unmatched new lines are added with a
/// fresh id, unmatched old ones removed.
struct LocalLineTracker {
    static let minimumOverlap = 0.3
    private var previous: [(id: UInt64, text: String, frame: Rect)] = []
    private var nextID: UInt64 = 1

    /// The changes since the last call, and the text of every current line by id.
    mutating func update(_ lines: [TextLine]) -> (changes: Changes, texts: [UInt64: String]) {
        var pairs: [(overlap: Double, new: Int, old: Int)] = []
        for (n, line) in lines.enumerated() {
            for (o, old) in previous.enumerated() {
                let overlap = line.frame.overlapRatio(old.frame)
                if overlap >= Self.minimumOverlap { pairs.append((overlap, n, o)) }
            }
        }
        var oldFor: [Int: Int] = [:]
        var taken = Set<Int>()
        for pair in pairs.sorted(by: { $0.overlap > $1.overlap }) where oldFor[pair.new] == nil && !taken.contains(pair.old) {
            oldFor[pair.new] = pair.old
            taken.insert(pair.old)
        }
        var changes = Changes()
        var current: [(id: UInt64, text: String, frame: Rect)] = []
        var texts: [UInt64: String] = [:]
        for (n, line) in lines.enumerated() {
            let id: UInt64
            if let o = oldFor[n] {
                id = previous[o].id
                if previous[o].text != line.text { changes.changed.append(id) }
            } else {
                id = nextID
                nextID += 1
                changes.added.append(id)
            }
            current.append((id, line.text, line.frame))
            texts[id] = line.text
        }
        for (o, old) in previous.enumerated() where !taken.contains(o) { changes.removed.append(old.id) }
        previous = current
        return (changes, texts)
    }

    /// Forgets the lines (a new session starts from nothing); ids are not reused.
    mutating func reset() { previous = [] }
}
