import Foundation
import LegibleCore
import Testing

@Suite("Locked")
struct LockedTests {
    /// Eight threads adding to one count and one list at once lose no addition: the value is only
    /// changed under the lock, and what `withLock` returns is read under it too.
    @Test func concurrentChangesAreNeverLost() {
        let shared = Locked((count: 0, seen: [Int]()))
        let threads = 8
        let additions = 10_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for addition in 0..<additions {
                shared.withLock { value in
                    value.count += 1
                    if addition == 0 { value.seen.append(thread) }
                }
            }
        }
        let (count, seen) = shared.withLock { ($0.count, $0.seen) }
        #expect(count == threads * additions)
        #expect(seen.sorted() == Array(0..<threads))
    }

    @Test func anErrorThrownInsideLeavesTheLockFree() {
        struct Refused: Error {}
        let shared = Locked(1)
        #expect(throws: Refused.self) { try shared.withLock { _ in throw Refused() } }
        // Taken again at once: the first withLock unlocked on its way out.
        #expect(shared.withLock { $0 } == 1)
    }
}
