internal import Foundation
internal import Glibc
internal import LegibleSockets

/// Finds the server's process when it runs on this machine.
enum ServerProcessLocator {
    /// `struct ucred` of <sys/socket.h> (which Swift's Glibc module leaves out without
    /// _GNU_SOURCE): pid, uid, gid, each 32 bits.
    private struct PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// The PID of the process at the other end of a unix socket (SO_PEERCRED: the kernel's
    /// record of who called listen/connect, which a peer cannot fake); nil for TCP or when the
    /// kernel does not say.
    static func peerPID(of socket: Socket) -> Int32? {
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(socket.descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
            length == socklen_t(MemoryLayout<PeerCredentials>.size), credentials.pid > 0
        else { return nil }
        return credentials.pid
    }
}

/// Reads a process's CPU time and resident size from /proc/PID.
struct ProcessSampler {
    let pid: Int32
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// nil when there is no PID to watch.
    init?(pid: Int32?) {
        guard let pid, pid > 0 else { return nil }
        self.pid = pid
    }

    /// user + sys CPU seconds and resident bytes now; nil when the process is gone.
    func read() -> (cpuSeconds: Double, rssBytes: Int)? {
        // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses, so
        // the fields are counted from the last ')'. utime and stime are fields 14 and 15, the
        // 12th and 13th after the state (field 3).
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        // /proc/PID/statm: size resident shared … in pages.
        guard let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
        let pages = statm.split(separator: " ")
        guard pages.count > 1, let resident = Int(pages[1]) else { return nil }
        return ((user + system) / ticksPerSecond, resident * pageSize)
    }
}
