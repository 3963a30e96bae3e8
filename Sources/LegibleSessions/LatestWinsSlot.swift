/// The drop policy of a session's pending frame: one slot, and the newest frame wins.
///
/// A camera sends frames faster than they can be read; queueing them would only make every
/// result older. So a session holds at most one frame waiting for an engine, and a newer frame
/// replaces it: the replaced frame is handed back to be answered `FRAME_STATUS_DROPPED` at
/// once, before it costs a decode. `dropCount` counts the replacements.
public struct LatestWinsSlot<Element> {
    public private(set) var element: Element?
    public private(set) var dropCount: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { element == nil }

    /// Puts `newElement` in the slot; returns the element it displaced, which the caller must
    /// answer as dropped.
    public mutating func offer(_ newElement: Element) -> Element? {
        let displaced = element
        element = newElement
        if displaced != nil { dropCount += 1 }
        return displaced
    }

    /// Empties the slot.
    public mutating func take() -> Element? {
        defer { element = nil }
        return element
    }
}
