internal import CMicroHTTPD
internal import Glibc
internal import LegibleCore
internal import LegibleMetrics
internal import LegibleWire
internal import Synchronization

/// MHD_RESPMEM_MUST_COPY (the importer gives MHD's fixed enums no usable case names).
private let mustCopy = MHD_ResponseMemoryMode(rawValue: 2)!

/// What the HTTP thread may read: the metrics (behind their lock), readiness, and the process.
final class HealthState: Sendable {
    let metrics: Metrics
    /// Ready once the default script's engine has loaded; not ready while draining.
    let ready = Atomic<Bool>(false)

    init(metrics: Metrics) {
        self.metrics = metrics
    }

    /// The answer to one GET: status, body, content type.
    func respond(path: String) -> (status: UInt32, body: String, type: String) {
        switch path {
        case "/metrics":
            return (200, metrics.render() + ProcessMetrics.render(), "text/plain; version=0.0.4; charset=utf-8")
        case "/healthz":
            return (200, "ok\n", "text/plain; charset=utf-8")
        case "/readyz":
            return ready.load(ordering: .acquiring)
                ? (200, "ready\n", "text/plain; charset=utf-8") : (503, "not ready\n", "text/plain; charset=utf-8")
        default:
            return (404, "not found: /metrics, /healthz and /readyz are served here\n", "text/plain; charset=utf-8")
        }
    }
}

/// `/metrics`, `/healthz` and `/readyz` over HTTP, served by libmicrohttpd on a thread of its
/// own (`--metrics tcp:HOST:PORT`). Owns the daemon, stopped in `deinit`.
final class MetricsEndpoint {
    private let daemon: OpaquePointer
    private let state: Unmanaged<HealthState>
    /// The port it listens on (the chosen one when asked for port 0).
    let port: UInt16

    init(address: ServerAddress, state: HealthState) throws(LegibleError) {
        guard case .tcp(let host, let port) = address else {
            throw LegibleError(.invalidArgument, "--metrics takes tcp:HOST:PORT")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(bare, String(port), &hints, &found) == 0, let info = found else {
            throw LegibleError(.invalidArgument, "--metrics: cannot resolve \(host)")
        }
        defer { freeaddrinfo(found) }
        let retained = Unmanaged.passRetained(state)
        let handler: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, _, _ in
            guard let context, let connection, let url else { return .NO }
            let state = Unmanaged<HealthState>.fromOpaque(context).takeUnretainedValue()
            let isGet = method.map { String(cString: $0) == "GET" || String(cString: $0) == "HEAD" } ?? false
            let (status, body, type) =
                isGet ? state.respond(path: String(cString: url)) : (405, "only GET\n", "text/plain; charset=utf-8")
            var bytes = Array(body.utf8)
            guard let response = MHD_create_response_from_buffer(bytes.count, &bytes, mustCopy) else {
                return .NO
            }
            defer { MHD_destroy_response(response) }
            _ = MHD_add_response_header(response, "Content-Type", type)
            return MHD_queue_response(connection, status, response)
        }
        guard
            let daemon = legible_mhd_start(
                info.pointee.ai_addr, port, handler, retained.toOpaque(), 64, 10)
        else {
            retained.release()
            throw LegibleError(.unavailable, "cannot serve metrics on \(address): \(String(cString: strerror(errno)))")
        }
        self.daemon = daemon
        self.state = retained
        self.port = legible_mhd_port(daemon)
    }

    deinit {
        MHD_stop_daemon(daemon)
        state.release()
    }
}

/// The process's own numbers, read from /proc when scraped (Prometheus' standard names).
enum ProcessMetrics {
    static func render() -> String {
        var out = ""
        if let statm = read("/proc/self/statm")?.split(separator: " "), statm.count > 1, let pages = Double(statm[1]) {
            let bytes = pages * Double(sysconf(Int32(_SC_PAGESIZE)))
            out += "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
            out += "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes \(Int64(bytes))\n"
        }
        if let stat = read("/proc/self/stat"), let close = stat.lastIndex(of: ")") {
            // Fields after "pid (comm) ": state is field 3; utime and stime are 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) {
                let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
                out += "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
                out +=
                    "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total \((user + system) / ticks)\n"
            }
        }
        if let directory = opendir("/proc/self/fd") {
            var count = -1  // not counting the descriptor opendir itself holds
            while let entry = readdir(directory) {
                if entry.pointee.d_name.0 != 46 { count += 1 }  // skip "." and ".."
            }
            closedir(directory)
            out += "# HELP process_open_fds Number of open file descriptors.\n"
            out += "# TYPE process_open_fds gauge\nprocess_open_fds \(max(0, count))\n"
        }
        return out
    }

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
