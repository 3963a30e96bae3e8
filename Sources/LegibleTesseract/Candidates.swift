internal import Glibc
internal import LegibleCore

/// One alternative Tesseract's LSTM considered for a symbol, with its CTC rating: the
/// negative log-likelihood of the best path through that character (lower is likelier).
struct SymbolChoice: Hashable {
    var text: String
    var rating: Double
}

/// Turns CTC ratings into candidates with confidences that mean something.
///
/// A symbol's candidate confidence is its *share of the likelihood* among the alternatives
/// Tesseract listed for that position: `exp(-rating) / Σ exp(-rating)`. Tesseract's own
/// choice confidence is `100 - 5 × rating`, clipped at 0, which reads 0 for every alternative
/// (docs/library-facts.md, "choices"); the share keeps their order and says how close a call was. A word's candidates
/// are the likeliest spellings made from its symbols' alternatives (k-best by summed rating),
/// each with the product of its symbols' shares. Candidates are the recognizer's raw view:
/// the word's text may differ from the first candidate where Tesseract's dictionary changed it.
enum CandidateRanking {
    /// Each choice's share of the likelihood, in the given order.
    static func shares(_ choices: [SymbolChoice]) -> [Double] {
        guard let best = choices.map(\.rating).min() else { return [] }
        // Shift by the best rating so that exp does not underflow for long paths.
        let weights = choices.map { exp(-($0.rating - best)) }
        let total = weights.reduce(0, +)
        return weights.map { $0 / total }
    }

    /// Up to `limit` candidates of one symbol, best first.
    static func symbolCandidates(_ choices: [SymbolChoice], limit: Int) -> [Candidate] {
        let shares = shares(choices)
        return zip(choices, shares).sorted { $0.0.rating < $1.0.rating }.prefix(limit).map {
            Candidate(text: $0.0.text, confidence: Float($0.1))
        }
    }

    /// Up to `limit` spellings of a word from its symbols' choices, best first (smallest total
    /// rating), each with the product of its symbols' shares.
    static func wordCandidates(_ symbols: [[SymbolChoice]], limit: Int) -> [Candidate] {
        let lists = symbols.filter { !$0.isEmpty }.map { choices in
            zip(choices, shares(choices)).sorted { $0.0.rating < $1.0.rating }
        }
        guard !lists.isEmpty, limit > 0 else { return [] }
        // Best-first search over index vectors; each step moves one symbol to its next choice.
        struct Node {
            var indices: [Int]
            var rating: Double
        }
        func rating(_ indices: [Int]) -> Double {
            zip(lists, indices).reduce(0) { $0 + $1.0[$1.1].0.rating }
        }
        var frontier = [
            Node(
                indices: Array(repeating: 0, count: lists.count),
                rating: rating(Array(repeating: 0, count: lists.count)))
        ]
        var seen: Set<[Int]> = [frontier[0].indices]
        var out: [Candidate] = []
        while out.count < limit, !frontier.isEmpty {
            let bestIndex = frontier.indices.min { frontier[$0].rating < frontier[$1].rating }!
            let node = frontier.remove(at: bestIndex)
            var text = ""
            var share = 1.0
            for (list, index) in zip(lists, node.indices) {
                text += list[index].0.text
                share *= list[index].1
            }
            out.append(Candidate(text: text, confidence: Float(share)))
            for position in node.indices.indices where node.indices[position] + 1 < lists[position].count {
                var next = node.indices
                next[position] += 1
                if seen.insert(next).inserted { frontier.append(Node(indices: next, rating: rating(next))) }
            }
        }
        return out
    }
}
