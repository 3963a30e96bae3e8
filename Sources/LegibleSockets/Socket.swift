internal import Glibc
public import LegibleCore
public import LegibleWire

/// What a socket's bytes pass through on their way in and out (TLS): given, the socket
/// receives and sends through it rather than through the descriptor directly.
public protocol SocketFilter: AnyObject {
    /// As `Socket.receive`: plaintext read, 0 at the end of the stream, nil when it would block.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(LegibleError) -> Int?
    /// As `Socket.send`: plaintext bytes taken, 0 when it would block.
    func send(_ bytes: UnsafeRawBufferPointer) throws(LegibleError) -> Int
    /// Says the end of the stream to the peer (TLS's close_notify), before the write shutdown.
    func shutdown()
    /// Bytes already read from the descriptor and not yet received: the descriptor will not
    /// wake its event loop for them.
    var hasBufferedInput: Bool { get }
}

/// An owned file descriptor of a socket; closed in `deinit` unless released.
public final class Socket: @unchecked Sendable {
    // @unchecked: the descriptor is an integer; who may use it when is the owner's rule
    // (a server's sockets are used on its event-loop thread only).
    public private(set) var descriptor: Int32
    /// TLS, on a server's TLS listeners: set once, right after accept.
    public var filter: (any SocketFilter)?

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { if descriptor >= 0 { Glibc.close(descriptor) } }

    public func close() {
        filter = nil
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Input is waiting inside the filter, where the event loop does not see it.
    public var hasBufferedInput: Bool { filter?.hasBufferedInput ?? false }

    public func setNonBlocking() throws(LegibleError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .system("fcntl(O_NONBLOCK)")
        }
    }

    /// Sends as much of `bytes` as the kernel takes now; never raises SIGPIPE.
    /// Returns the count sent, 0 when it would block.
    public func send(_ bytes: UnsafeRawBufferPointer) throws(LegibleError) -> Int {
        if let filter { return try filter.send(bytes) }
        while true {
            let sent = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if sent >= 0 { return sent }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw .system("send")
        }
    }

    /// Sends all of `bytes`, blocking (for blocking sockets).
    public func sendAll(_ bytes: [UInt8]) throws(LegibleError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Result { () throws(LegibleError) -> Int in try send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            offset += try sent.get()
        }
    }

    /// Reads into `buffer`: the count read, 0 at end of stream, nil when it would block.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(LegibleError) -> Int? {
        if let filter { return try filter.receive(into: buffer) }
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw .system("recv")
        }
    }

    /// Closes the sending direction: the peer reads end of stream after what was sent.
    public func shutdownWrite() {
        filter?.shutdown()
        Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    // MARK: Making sockets

    /// Connects a blocking stream socket to `address`.
    public static func connect(to address: ServerAddress) throws(LegibleError) -> Socket {
        switch address {
        case .unix(let path):
            let socket = Socket(
                descriptor: Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
            guard socket.descriptor >= 0 else { throw .system("socket") }
            var addr = try unixAddress(path)
            let result = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard result == 0 else { throw .system("connect to \(address)", code: .unavailable) }
            return socket
        case .tcp(let host, let port):
            var lastError = LegibleError(.unavailable, "no address for \(host)")
            for info in try resolve(host: host, port: port, passive: false) {
                let socket = Socket(
                    descriptor: Glibc.socket(info.family, info.type | Int32(SOCK_CLOEXEC.rawValue), info.proto))
                guard socket.descriptor >= 0 else { continue }
                let ok = info.address.withUnsafeBytes {
                    Glibc.connect(
                        socket.descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
                        == 0
                }
                if ok {
                    var one: Int32 = 1
                    setsockopt(
                        socket.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    return socket
                }
                lastError = .system("connect to \(address)", code: .unavailable)
            }
            throw lastError
        }
    }

    /// A listening, non-blocking socket bound to `address`.
    ///
    /// A unix socket file is created with `mode` (0600 by default: only its owner may connect);
    /// a stale file left by a dead server is replaced, a live server's is not.
    /// For `tcp:HOST:0` the kernel picks the port: `boundAddress` tells which.
    public static func listen(on address: ServerAddress, mode: UInt32 = 0o600, backlog: Int32 = 512)
        throws(LegibleError) -> Socket
    {
        switch address {
        case .unix(let path):
            try removeStaleSocketFile(path)
            let socket = Socket(
                descriptor: Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
            guard socket.descriptor >= 0 else { throw .system("socket") }
            var addr = try unixAddress(path)
            // The umask makes the file private from the moment it exists; chmod then widens it
            // to what was asked.
            let oldMask = umask(0o177)
            let result = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            umask(oldMask)
            guard result == 0 else { throw .system("bind \(address)") }
            guard chmod(path, mode_t(mode)) == 0 else { throw .system("chmod \(path)") }
            guard Glibc.listen(socket.descriptor, backlog) == 0 else { throw .system("listen \(address)") }
            try socket.setNonBlocking()
            return socket
        case .tcp(let host, let port):
            var lastError = LegibleError(.unavailable, "no address for \(host)")
            for info in try resolve(host: host, port: port, passive: true) {
                let socket = Socket(
                    descriptor: Glibc.socket(info.family, info.type | Int32(SOCK_CLOEXEC.rawValue), info.proto))
                guard socket.descriptor >= 0 else { continue }
                var one: Int32 = 1
                setsockopt(socket.descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
                let bound = info.address.withUnsafeBytes {
                    Glibc.bind(
                        socket.descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
                        == 0
                }
                guard bound else {
                    lastError = .system("bind \(address)")
                    continue
                }
                guard Glibc.listen(socket.descriptor, backlog) == 0 else { throw .system("listen \(address)") }
                try socket.setNonBlocking()
                return socket
            }
            throw lastError
        }
    }

    /// The address a listening TCP socket is bound to (its real port when 0 was asked).
    public func boundPort() -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default: return nil
        }
    }

    /// Who is at the other end of an accepted connection: the user on a Unix socket
    /// (SO_PEERCRED), the address on TCP; nil when the kernel does not say.
    public func peer() -> Peer? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_UNIX:
            // struct ucred: pid, uid, gid.
            var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
            var size = socklen_t(MemoryLayout.size(ofValue: credentials))
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return nil }
            return .user(credentials.uid)
        case AF_INET, AF_INET6:
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            let shown = withUnsafePointer(to: &storage) { address -> Bool in
                if Int32(address.pointee.ss_family) == AF_INET {
                    return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        var ip = $0.pointee.sin_addr
                        return inet_ntop(AF_INET, &ip, &text, socklen_t(text.count)) != nil
                    }
                }
                return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var ip = $0.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count)) != nil
                }
            }
            return shown
                ? .address(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) : nil
        default: return nil
        }
    }

    /// The other end of a connection, as the server counts connections per peer.
    public enum Peer: Hashable, Sendable, CustomStringConvertible {
        /// A local user, on a Unix socket.
        case user(UInt32)
        /// A remote address, on TCP (any port).
        case address(String)

        public var description: String {
            switch self {
            case .user(let uid): "uid \(uid)"
            case .address(let address): address
            }
        }
    }

    /// Accepts one connection as a non-blocking socket; nil when none is waiting.
    public func accept() throws(LegibleError) -> Socket? {
        while true {
            let fd = Glibc.accept(descriptor, nil, nil)
            if fd >= 0 {
                let socket = Socket(descriptor: fd)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                try socket.setNonBlocking()
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return socket
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: return nil
            default: throw .system("accept")
            }
        }
    }

    // MARK: Helpers

    private static func unixAddress(_ path: String) throws(LegibleError) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            throw LegibleError(.invalidArgument, "unix socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return addr
    }

    private static func removeStaleSocketFile(_ path: String) throws(LegibleError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw LegibleError(.failedPrecondition, "\(path) exists and is not a socket; not replacing it")
        }
        if (try? connect(to: .unix(path: path))) != nil {
            throw LegibleError(.unavailable, "another server is listening on unix:\(path)")
        }
        unlink(path)
    }

    private struct AddressInfo {
        var family: Int32
        var type: Int32
        var proto: Int32
        var address: [UInt8]
    }

    private static func resolve(host: String, port: UInt16, passive: Bool) throws(LegibleError) -> [AddressInfo] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            throw LegibleError(.invalidArgument, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var out: [AddressInfo] = []
        var node = list
        while let entry = node {
            let bytes = UnsafeRawBufferPointer(start: entry.pointee.ai_addr, count: Int(entry.pointee.ai_addrlen))
            out.append(
                AddressInfo(
                    family: entry.pointee.ai_family, type: entry.pointee.ai_socktype, proto: entry.pointee.ai_protocol,
                    address: Array(bytes)))
            node = entry.pointee.ai_next
        }
        return out
    }
}

extension Socket {
    /// Gives the socket file at `path` to group `name` (so that its members may connect when
    /// the mode allows the group).
    public static func setGroup(of path: String, to name: String) throws(LegibleError) {
        guard let group = getgrnam(name) else {
            throw LegibleError(.invalidArgument, "no group named '\(name)' on this machine")
        }
        guard chown(path, uid_t.max, group.pointee.gr_gid) == 0 else { throw .system("chown \(path)") }
    }
}

/// Bytes made for a socket that it has not taken yet: a non-blocking socket takes what it can,
/// and the rest waits here for the next writable event (the HTTP/2 transports' output).
public struct UnsentBytes: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// How many of `bytes` the socket has taken.
    public private(set) var offset = 0

    public init() {}

    /// Everything has been taken.
    public var isEmpty: Bool { offset == bytes.count }
    /// Bytes still to send.
    public var count: Int { bytes.count - offset }

    /// Starts over with `next` (when everything before has been taken).
    public mutating func replace(with next: [UInt8]) {
        bytes = next
        offset = 0
    }

    /// Sends what `socket` takes now; returns how many bytes (0: it would block).
    public mutating func send(to socket: Socket) throws(LegibleError) -> Int {
        let start = offset
        let sent = try bytes.withUnsafeBytes { raw in
            Result { () throws(LegibleError) -> Int in try socket.send(UnsafeRawBufferPointer(rebasing: raw[start...]))
            }
        }.get()
        offset += sent
        return sent
    }
}
