public import LegibleCore

/// Finds the values a session's capture goals ask for in a result: entity goals through
/// `EntityDetector` (a card number only when it passes Luhn, as entities do), pattern goals
/// through `LinearPattern` on each line's text. Values are normalized per kind so that one
/// value read with different spacing or case counts as one.
///
/// Validated when made: at most `maxGoals` goals with distinct, non-empty names, confirmations
/// within 1...`maxConfirmations`, patterns that compile (each INVALID_ARGUMENT with the reason).
public struct CaptureFinder: Sendable {
    public static let maxGoals = CaptureGoal.maxPerSession
    public static let maxConfirmations = 100
    public static let maxNameBytes = 64

    public let goals: [CaptureGoal]
    private let patterns: [String: LinearPattern]

    public init(goals: [CaptureGoal]) throws(LegibleError) {
        guard goals.count <= Self.maxGoals else {
            // "More than": a longer list was cut to one over the limit as it was decoded.
            throw LegibleError(
                .invalidArgument, "more than \(Self.maxGoals) capture goals; at most \(Self.maxGoals) are taken")
        }
        var names: Set<String> = []
        var patterns: [String: LinearPattern] = [:]
        for goal in goals {
            guard !goal.name.isEmpty, goal.name.utf8.count <= Self.maxNameBytes else {
                throw LegibleError(
                    .invalidArgument, "a capture goal needs a name of 1 to \(Self.maxNameBytes) bytes")
            }
            guard names.insert(goal.name).inserted else {
                throw LegibleError(.invalidArgument, "two capture goals are named \"\(goal.name)\"")
            }
            guard (1...Self.maxConfirmations).contains(goal.confirmations) else {
                throw LegibleError(
                    .invalidArgument,
                    "capture goal \"\(goal.name)\": confirmations must be 1 to \(Self.maxConfirmations)")
            }
            if case .pattern(let source) = goal.target {
                do throws(LegibleError) {
                    patterns[goal.name] = try LinearPattern(source)
                } catch {
                    throw LegibleError(.invalidArgument, "capture goal \"\(goal.name)\": \(error.message)")
                }
            }
        }
        self.goals = goals
        self.patterns = patterns
    }

    /// Every goal's values in `text`, each value once per goal (the first place it was read).
    public func candidates(in text: RecognizedText) -> [CaptureCandidate] {
        var found: [CaptureCandidate] = []
        var seen: Set<[String]> = []
        func add(_ candidate: CaptureCandidate) {
            guard !candidate.value.isEmpty, seen.insert([candidate.goal, candidate.value]).inserted else { return }
            found.append(candidate)
        }
        let entityKinds = Set(
            goals.compactMap { goal -> EntityKind? in
                if case .entity(let kind) = goal.target { return kind }
                return nil
            })
        let entities = entityKinds.isEmpty ? [] : EntityDetector.entities(in: text, kinds: entityKinds)
        let lines = text.lines
        for goal in goals {
            switch goal.target {
            case .entity(let kind):
                for entity in entities where entity.kind == kind {
                    add(
                        CaptureCandidate(
                            goal: goal.name, value: Self.normalized(entity.text, as: kind), frames: entity.frames,
                            confidence: Self.confidence(of: entity.frames, in: lines)))
                }
            case .pattern:
                guard let pattern = patterns[goal.name] else { continue }
                for line in lines {
                    for match in Self.matches(of: pattern, in: line) {
                        add(
                            CaptureCandidate(
                                goal: goal.name, value: Self.normalizedMatch(match.text),
                                frames: match.elements.map(\.frame),
                                confidence: Self.meanConfidence(match.elements)))
                    }
                }
            }
        }
        return found
    }

    // MARK: Normalization

    /// The form in which readings of one value compare equal.
    public static func normalized(_ text: String, as kind: EntityKind) -> String {
        switch kind {
        case .phoneNumber:
            let digits = String(text.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
            return text.trimmingLeadingSpaces.hasPrefix("+") ? "+" + digits : digits
        case .paymentCard:
            return String(text.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
        case .emailAddress, .url, .date:
            return String(text.filter { !$0.isWhitespace }).lowercased()
        }
    }

    /// A pattern's match: runs of spaces as one, no space at either end.
    static func normalizedMatch(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    // MARK: Where a match lies

    /// A line's text rebuilt from its elements (one space between two), so that a match's
    /// bytes map back to the elements it spans.
    static func matches(of pattern: LinearPattern, in line: TextLine) -> [(text: String, elements: [TextElement])] {
        var bytes: [UInt8] = []
        var spans: [Range<Int>] = []
        for element in line.elements {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: " ")) }
            let start = bytes.count
            bytes.append(contentsOf: element.text.utf8)
            spans.append(start..<bytes.count)
        }
        return pattern.matches(inUTF8: bytes).map { range in
            let text = String(decoding: bytes[range], as: UTF8.self)
            let elements = zip(line.elements, spans).filter { $0.1.overlaps(range) }.map(\.0)
            return (text, elements)
        }
    }

    static func meanConfidence(_ elements: [TextElement]) -> Float {
        elements.isEmpty ? 0 : elements.map(\.confidence).reduce(0, +) / Float(elements.count)
    }

    /// The mean confidence of the elements an entity spans (found by their frames).
    static func confidence(of frames: [Rect], in lines: [TextLine]) -> Float {
        let wanted = Set(frames)
        return meanConfidence(lines.flatMap(\.elements).filter { wanted.contains($0.frame) })
    }
}

extension String {
    fileprivate var trimmingLeadingSpaces: Substring { drop { $0.isWhitespace } }
}
