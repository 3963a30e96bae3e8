import Testing

@testable import LegibleServer

/// The memory of messages still arriving: ordinary frames never wait; beyond their allowance
/// the largest senders share one pool, and once it is spent they are read one at a time.
@Suite("Partial message pool")
struct PartialMessagePoolTests {
    @Test func messagesWithinTheAllowanceNeverWait() {
        var pool = PartialMessagePool<String>(allowance: 100, pool: 0)
        for key in ["a", "b", "c"] { #expect(pool.holds(100, key) == .init(mayRead: true, resume: [])) }
        #expect(pool.heldBytes == 300 && pool.borrowed == 0)
    }

    @Test func onceThePoolIsSpentOneBigSenderReadsAndTheOthersWaitWhileSmallOnesGoOn() {
        var pool = PartialMessagePool<String>(allowance: 100, pool: 150)
        #expect(pool.holds(200, "big").mayRead)  // borrows 100 of 150
        #expect(pool.holds(200, "first").mayRead)  // spends it: the overdraft
        #expect(pool.overdraft == "first")
        #expect(!pool.holds(200, "big").mayRead)
        #expect(!pool.holds(300, "third").mayRead)
        #expect(pool.paused == ["big", "third"])
        #expect(pool.holds(90, "small").mayRead)
        #expect(pool.holds(500, "first").mayRead)
        #expect(pool.heldBytes == 1090)
    }

    @Test func theOverdraftPassesOnWhenItsMessageIsWholeAndEveryoneReadsWhenThePoolHasRoom() {
        var pool = PartialMessagePool<String>(allowance: 100, pool: 150)
        _ = pool.holds(200, "a")
        _ = pool.holds(200, "b")  // the overdraft
        _ = pool.holds(200, "c")
        _ = pool.holds(200, "d")
        #expect(pool.paused == ["c", "d"] && pool.overdraft == "b")
        // b's message is whole: the pool is still spent (a, c, d borrow 300), so c reads next.
        #expect(pool.holds(0, "b") == .init(mayRead: true, resume: ["c"]))
        #expect(pool.overdraft == "c" && pool.paused == ["d"])
        // c closes: d takes the overdraft.
        #expect(pool.forget("c") == ["d"])
        // a's and d's messages are whole: nothing borrowed, nobody waits.
        #expect(pool.holds(0, "a").resume == [])
        #expect(pool.holds(0, "d").mayRead && pool.overdraft == nil && pool.borrowed == 0 && pool.heldBytes == 0)
    }

    @Test func roomInThePoolResumesEveryonePaused() {
        var pool = PartialMessagePool<String>(allowance: 100, pool: 250)
        _ = pool.holds(300, "a")  // borrows 200
        _ = pool.holds(200, "b")  // 300 > 250: the overdraft
        _ = pool.holds(200, "c")
        _ = pool.holds(200, "d")
        #expect(pool.paused == ["c", "d"])
        #expect(pool.forget("a") == [])  // b, c and d still borrow 300 of 250; b reads
        let decision = pool.holds(0, "b")  // c and d borrow 200 of 250
        #expect(decision.mayRead && Set(decision.resume) == ["c", "d"] && pool.paused.isEmpty)
        #expect(pool.overdraft == nil)
    }
}
