/// What a session is looking for (`legible.v1.CaptureGoal`): an entity kind or a client's
/// pattern, captured once the same normalized value has been read in `confirmations` results.
public struct CaptureGoal: Sendable, Hashable, Codable {
    public enum Target: Sendable, Hashable, Codable {
        case entity(EntityKind)
        /// An RE2 pattern (`LinearPattern`), matched within each line.
        case pattern(String)
    }

    /// The goal's name, unique in the session: each `Capture` names its goal.
    public var name: String
    public var target: Target
    /// Results a value must be read in to count as captured (at least 1).
    public var confirmations: Int
    /// The session ends by itself once every goal is captured.
    public var endWhenCaptured: Bool

    /// Confirmations when the client says 0.
    public static let defaultConfirmations = 3
    /// The most goals one session may have.
    public static let maxPerSession = 16

    public init(name: String, target: Target, confirmations: Int = defaultConfirmations, endWhenCaptured: Bool = false)
    {
        self.name = name
        self.target = target
        self.confirmations = confirmations
        self.endWhenCaptured = endWhenCaptured
    }
}

/// A value for a capture goal found in one result: its goal, its normalized value, where and
/// how surely it was read. `CaptureTracker` counts them across results.
public struct CaptureCandidate: Sendable, Hashable, Codable {
    public var goal: String
    public var value: String
    public var frames: [Rect]
    public var confidence: Float

    public init(goal: String, value: String, frames: [Rect], confidence: Float) {
        self.goal = goal
        self.value = value
        self.frames = frames
        self.confidence = confidence
    }
}

/// One value read for a goal in one frame: a candidate until confirmed (`legible.v1.Capture`).
public struct Capture: Sendable, Hashable, Codable {
    public var goal: String
    /// Normalized: a phone number's digits, an e-mail lower-cased, a card number without spaces.
    public var value: String
    /// Where it was read in this result's frame: the elements it spans, in reading order.
    public var frames: [Rect]
    public var confidence: Float
    /// Results of the stream in which this value was read so far (this one included).
    public var confirmations: Int
    /// True in exactly one result: the one in which the value reached its goal's confirmations.
    public var captured: Bool

    public init(goal: String, value: String, frames: [Rect], confidence: Float, confirmations: Int, captured: Bool) {
        self.goal = goal
        self.value = value
        self.frames = frames
        self.confidence = confidence
        self.confirmations = confirmations
        self.captured = captured
    }
}

extension CaptureGoal {
    /// Goals as the command lines spell them (`legible --capture`, `legible-floor --capture`):
    /// `phone`, `email`, `url`, `date`, `card`, or `re:PATTERN` (named `re1`, `re2`, … in order);
    /// INVALID_ARGUMENT for another word or a goal given twice.
    public static func fromCommandLine(
        _ texts: [String], confirmations: Int = defaultConfirmations, endWhenCaptured: Bool = false
    ) throws(LegibleError) -> [CaptureGoal] {
        let kinds: [String: EntityKind] = [
            "phone": .phoneNumber, "email": .emailAddress, "url": .url, "date": .date, "card": .paymentCard,
        ]
        var goals: [CaptureGoal] = []
        var patterns = 0
        for text in texts {
            let target: Target
            let name: String
            if text.hasPrefix("re:") {
                patterns += 1
                name = "re\(patterns)"
                target = .pattern(String(text.dropFirst(3)))
            } else if let kind = kinds[text] {
                name = text
                target = .entity(kind)
            } else {
                throw LegibleError(
                    .invalidArgument, "--capture takes phone, email, url, date, card or re:PATTERN, not '\(text)'")
            }
            guard !goals.contains(where: { $0.name == name }) else {
                throw LegibleError(.invalidArgument, "--capture \(text) is given twice")
            }
            goals.append(
                CaptureGoal(name: name, target: target, confirmations: confirmations, endWhenCaptured: endWhenCaptured))
        }
        return goals
    }
}
