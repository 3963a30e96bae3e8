extension Duration {
    /// Whole microseconds, saturating at UInt32.max (71 minutes): the unit of `Timing`.
    public var micros: UInt32 {
        let (seconds, attoseconds) = components
        let value = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return UInt32(clamping: max(0, value))
    }
}
