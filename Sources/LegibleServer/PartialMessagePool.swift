/// The memory of messages still arriving, across every connection (`--max-buffered-bytes`).
///
/// Each connection may hold up to `allowance` bytes of a message it is sending on its own, so
/// that ordinary frames (a 720p JPEG is 100–300 KB, a raw 720p GRAY8 or NV12 frame 0.9–1.4 MB)
/// never wait on anyone. Beyond its allowance a connection borrows from one shared pool. Once
/// the pool is spent, whoever needs more — the largest senders, by construction — is not read,
/// except one at a time (first come, first served: the *overdraft*) until its message is whole,
/// so that big messages still get through, one after another, and nothing grows without bound:
/// the bytes held are at most the pool, one allowance per connection and one message. A sender
/// that stalls holding the overdraft is closed by `--message-seconds`.
///
/// Pure bookkeeping, tested without sockets; `Key` names a connection.
struct PartialMessagePool<Key: Hashable> {
    let allowance: Int
    let pool: Int
    private var held: [Key: Int] = [:]
    /// Σ held.
    private(set) var heldBytes = 0
    /// Σ max(0, held − allowance).
    private(set) var borrowed = 0
    /// Connections not being read because the pool is spent, first paused first.
    private(set) var paused: [Key] = []
    /// The one connection read past the spent pool.
    private(set) var overdraft: Key?

    init(allowance: Int, pool: Int) {
        self.allowance = allowance
        self.pool = pool
    }

    /// What the server does after a change.
    struct Decision: Equatable {
        /// The connection that reported may read on.
        var mayRead: Bool
        /// Connections to read again.
        var resume: [Key]
    }

    /// `key` now holds `bytes` of a partial message (0 between messages).
    mutating func holds(_ bytes: Int, _ key: Key) -> Decision {
        let before = held[key, default: 0]
        held[key] = bytes > 0 ? bytes : nil
        heldBytes += bytes - before
        borrowed += max(0, bytes - allowance) - max(0, before - allowance)
        guard bytes > allowance && borrowed > pool else {
            if overdraft == key { overdraft = nil }
            return Decision(mayRead: true, resume: resumable())
        }
        if overdraft == nil { overdraft = key }
        if overdraft == key { return Decision(mayRead: true, resume: []) }
        if !paused.contains(key) { paused.append(key) }
        return Decision(mayRead: false, resume: [])
    }

    /// `key` closed: what it held is free.
    mutating func forget(_ key: Key) -> [Key] {
        paused.removeAll { $0 == key }
        if overdraft == key { overdraft = nil }
        if let bytes = held.removeValue(forKey: key) {
            borrowed -= max(0, bytes - allowance)
            heldBytes -= bytes
        }
        return resumable()
    }

    /// Who reads again: everyone paused once the pool has room; otherwise, when nobody holds
    /// the overdraft, the first paused takes it.
    private mutating func resumable() -> [Key] {
        if borrowed < pool {
            defer { paused.removeAll() }
            return paused
        }
        guard overdraft == nil, !paused.isEmpty else { return [] }
        let next = paused.removeFirst()
        overdraft = next
        return [next]
    }
}
