/// Which connections the server takes, and which it lets go to make room: a flood of
/// connections that never start a session must not lock real clients out, and one peer must
/// not take every connection.
///
/// - At most `maxConnections` open; at most `maxPerPeer` from one peer (a uid on a Unix
///   socket, an address on TCP).
/// - A connection is *unstarted* until its session starts (StartSession accepted, token
///   checked). At most `maxUnstarted` of them; they are what gives way: when a limit is
///   reached, the oldest unstarted connection (the peer's own, for the per-peer limit) is
///   closed to admit the newcomer. Only when none is left to close is the newcomer refused.
///
/// Pure bookkeeping, tested without sockets: `arrive` decides, the server carries out the
/// evictions and then reports the newcomer with `opened`.
struct ConnectionAdmission<Peer: Hashable> {
    struct Limits {
        var maxConnections: Int
        var maxUnstarted: Int
        var maxPerPeer: Int
    }

    enum Refusal: Equatable {
        /// Every one of `maxConnections` has a started session.
        case serverFull
        /// Every one of the peer's `maxPerPeer` connections has a started session.
        case peerFull
    }

    enum Decision: Equatable {
        /// Take the newcomer after closing these connections (oldest first).
        case admit(evicting: [UInt64])
        case refuse(Refusal)
    }

    let limits: Limits
    private var peers: [UInt64: Peer] = [:]
    /// Unstarted connections, oldest first.
    private var unstarted: [UInt64] = []
    private var perPeer: [Peer: Int] = [:]

    init(limits: Limits) { self.limits = limits }

    var openCount: Int { peers.count }
    var unstartedCount: Int { unstarted.count }
    func count(of peer: Peer) -> Int { perPeer[peer, default: 0] }

    /// A connection from `peer` wants in. Connections it evicts are forgotten here at once.
    mutating func arrive(from peer: Peer) -> Decision {
        var evicting: [UInt64] = []
        if count(of: peer) >= limits.maxPerPeer {
            guard let oldest = unstarted.first(where: { peers[$0] == peer }) else { return .refuse(.peerFull) }
            forget(oldest)
            evicting.append(oldest)
        }
        if openCount >= limits.maxConnections || unstartedCount >= limits.maxUnstarted {
            guard let oldest = unstarted.first else { return .refuse(.serverFull) }
            forget(oldest)
            evicting.append(oldest)
        }
        return .admit(evicting: evicting)
    }

    /// The connection `arrive` admitted is open as `serial`; it is unstarted.
    mutating func opened(_ serial: UInt64, from peer: Peer) {
        peers[serial] = peer
        perPeer[peer, default: 0] += 1
        unstarted.append(serial)
    }

    /// `serial`'s session started: it no longer gives way to newcomers.
    mutating func started(_ serial: UInt64) {
        if let index = unstarted.firstIndex(of: serial) { unstarted.remove(at: index) }
    }

    /// `serial` closed (a no-op for one already evicted, or never counted).
    mutating func closed(_ serial: UInt64) { forget(serial) }

    private mutating func forget(_ serial: UInt64) {
        guard let peer = peers.removeValue(forKey: serial) else { return }
        started(serial)
        let left = perPeer[peer, default: 1] - 1
        perPeer[peer] = left > 0 ? left : nil
    }
}
