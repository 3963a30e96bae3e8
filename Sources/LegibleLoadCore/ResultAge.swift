/// How old the text a session shows is, over time: what a camera user sees.
///
/// At instant `t` a session shows the text of the newest frame answered so far with text
/// (recognized, or skipped because nothing changed, which vouches for the text still
/// holding); the *result age* is `t −` that frame's scheduled send time (its capture time,
/// for a camera). It grows linearly between answers and falls back to that answer's latency
/// when one arrives, so it charges both slow answers and missing ones (dropped frames): a
/// server that answers every fourth frame in 100 ms shows text up to 4 frame intervals +
/// 100 ms old.
///
/// It is sampled every `step` from the session's first such answer until `end` (the end of
/// the session's sending window), and the samples of all sessions are pooled: a time-weighted
/// distribution, not one per answer.
public enum ResultAge {
    /// One answer that refreshed the shown text: when it arrived, and the scheduled send time
    /// of the frame it describes.
    public struct Refresh: Sendable, Hashable {
        public var arrived: Nanoseconds
        public var frameScheduled: Nanoseconds
        public init(arrived: Nanoseconds, frameScheduled: Nanoseconds) {
            self.arrived = arrived
            self.frameScheduled = frameScheduled
        }
    }

    /// The ages (in nanoseconds) at `first refresh, first + step, …` while `< end`.
    public static func samples(_ refreshes: [Refresh], until end: Nanoseconds, step: Nanoseconds) -> [Nanoseconds] {
        precondition(step > 0)
        let ordered = refreshes.sorted { $0.arrived < $1.arrived }
        guard let first = ordered.first else { return [] }
        var out: [Nanoseconds] = []
        var next = 0
        // The newest frame shown: results of one session come in frame order, but a late
        // answer for an older frame must not make the text look older than it is.
        var newest = Nanoseconds.min
        var t = first.arrived
        while t < end {
            while next < ordered.count && ordered[next].arrived <= t {
                newest = max(newest, ordered[next].frameScheduled)
                next += 1
            }
            out.append(t - newest)
            t += step
        }
        return out
    }
}
