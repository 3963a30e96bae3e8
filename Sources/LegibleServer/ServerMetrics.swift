internal import LegibleCore
internal import LegibleEngine
internal import LegibleMetrics
internal import LegibleSessions
internal import LegibleWire

/// The server's metrics, named as DESIGN.md binds them (`legible_…`), labelled by script and by
/// reason or code where they apply; never per session. Updated on the loop thread.
struct ServerMetrics {
    let registry = Metrics()

    /// Seconds: from a few ms (a skip, a small crop) to a deadline-length recognition.
    static let durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10]

    init() {
        let r = registry
        r.define("legible_frames_received_total", .counter, help: "Frames received, by the session's main script.")
        r.define("legible_frames_recognized_total", .counter, help: "Frames read by an engine.")
        r.define(
            "legible_frames_dropped_total", .counter,
            help: "Frames answered DROPPED: replaced by a newer one, or too old when an engine was free.")
        r.define(
            "legible_frames_skipped_total", .counter, help: "Frames answered SKIPPED: unchanged, or the camera moving.")
        r.define("legible_frames_failed_total", .counter, help: "Frames answered FAILED, by gRPC status code name.")
        r.define(
            "legible_recognition_seconds", .histogram, help: "Time an engine spent reading a frame (OSD included).",
            buckets: Self.durationBuckets)
        r.define(
            "legible_result_age_seconds", .histogram,
            help: "From a frame's last byte read to its result queued for writing (recognized and skipped frames).",
            buckets: Self.durationBuckets)
        r.define(
            "legible_decode_seconds", .histogram, help: "Decode, orientation and crop of a frame, by encoding.",
            buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25])
        r.define("legible_sessions", .gauge, help: "Sessions started and not yet closed.")
        r.define("legible_connections", .gauge, help: "Open client connections.")
        r.define(
            "legible_connections_refused_total", .counter,
            help: "Connections turned away at --max-connections or --max-connections-per-peer.")
        r.define(
            "legible_partial_message_bytes", .gauge, help: "Bytes of messages still arriving, across connections.")
        r.define(
            "legible_reads_paused_total", .counter,
            help: "Connections not read for a while: --max-buffered-bytes of partial messages were held.")
        r.define(
            "legible_connections_evicted_total", .counter,
            help: "Connections without a started session closed to make room for a newer one.")
        r.define(
            "legible_sessions_refused_total", .counter,
            help: "StartSession refused: at --max-sessions, or without a valid auth token.")
        r.define(
            "legible_engines_loaded", .gauge, help: "Engines loaded (idle or busy), by script of their first model.")
        r.define("legible_engines_busy", .gauge, help: "Engines reading a frame now, by script.")
        r.define(
            "legible_engine_crashes_total", .counter,
            help: "Engine worker processes that died reading a frame (each failed that frame only), by script.")
        r.define(
            "legible_engine_workers_killed_total", .counter,
            help: "Engine worker processes killed because a recognition would not stop, by script and code.")
        r.define("legible_received_bytes_total", .counter, help: "Bytes read from clients.")
        r.define("legible_sent_bytes_total", .counter, help: "Bytes written to clients.")
    }

    func engineCrashed(_ key: EngineKey) {
        registry.increment("legible_engine_crashes_total", ["script": Self.script(of: key)])
    }

    func engineWorkerStopped(_ key: EngineKey, reason: LegibleError.Code) {
        registry.increment(
            "legible_engine_workers_killed_total", ["script": Self.script(of: key), "code": reason.name])
    }

    func frameReceived(script: Script) {
        registry.increment("legible_frames_received_total", ["script": script.description])
    }

    /// One answer, whatever produced it.
    func answered(_ result: FrameResult, script: Script, droppedTooOld: Bool) {
        let name = script.description
        switch result.status {
        case .recognized:
            registry.increment("legible_frames_recognized_total", ["script": name])
            if let timing = result.timing {
                registry.observe("legible_recognition_seconds", ["script": name], Double(timing.recognizeMicros) / 1e6)
                registry.observe("legible_result_age_seconds", ["script": name], Double(timing.totalMicros) / 1e6)
            }
        case .dropped:
            registry.increment(
                "legible_frames_dropped_total", ["script": name, "reason": droppedTooOld ? "too_old" : "replaced"])
        case .skipped:
            let reason = result.skipReason == .moving ? "moving" : "unchanged"
            registry.increment("legible_frames_skipped_total", ["script": name, "reason": reason])
            if let timing = result.timing {
                registry.observe("legible_result_age_seconds", ["script": name], Double(timing.totalMicros) / 1e6)
            }
        case .failed:
            let code = LegibleError.Code(rawValue: result.error?.code ?? 2).name
            registry.increment("legible_frames_failed_total", ["script": name, "code": code])
        }
    }

    func decoded(_ encoding: ImageEncoding?, micros: UInt32) {
        registry.observe(
            "legible_decode_seconds", ["encoding": encoding?.description ?? "unknown"], Double(micros) / 1e6)
    }

    func sessions(_ count: Int, connections: Int) {
        registry.set("legible_sessions", to: Double(count))
        registry.set("legible_connections", to: Double(connections))
    }

    func refusedConnection() { registry.increment("legible_connections_refused_total") }

    func evictedConnection() { registry.increment("legible_connections_evicted_total") }

    func partialMessageBytes(_ bytes: Int) { registry.set("legible_partial_message_bytes", to: Double(bytes)) }

    func readPausedForMemory() { registry.increment("legible_reads_paused_total", ["reason": "buffered_bytes"]) }

    func refusedSession(reason: String) { registry.increment("legible_sessions_refused_total", ["reason": reason]) }

    func bytes(received: Int = 0, sent: Int = 0) {
        if received > 0 { registry.increment("legible_received_bytes_total", by: Double(received)) }
        if sent > 0 { registry.increment("legible_sent_bytes_total", by: Double(sent)) }
    }

    /// The script label of an engine: its first model's script (`custom` when none is known).
    private static func script(of key: EngineKey) -> String {
        key.models.first.flatMap(ModelCatalog.script(ofModel:))?.description ?? "custom"
    }

    /// The pool's loaded and busy engines per script (every script listed, 0 when none).
    func pool(_ engines: [EngineID: EnginePool.EngineState]) {
        var loaded: [Script: Int] = [:]
        var busy: [Script: Int] = [:]
        for (id, state) in engines {
            guard let script = id.key.models.first.flatMap(ModelCatalog.script(ofModel:)) else { continue }
            switch state {
            case .loading: continue
            case .idle: loaded[script, default: 0] += 1
            case .busy:
                loaded[script, default: 0] += 1
                busy[script, default: 0] += 1
            }
        }
        for script in Script.allCases {
            registry.set("legible_engines_loaded", ["script": script.description], to: Double(loaded[script] ?? 0))
            registry.set("legible_engines_busy", ["script": script.description], to: Double(busy[script] ?? 0))
        }
    }
}
