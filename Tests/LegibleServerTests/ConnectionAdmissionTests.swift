import Testing

@testable import LegibleServer

/// Which connections the server takes and which give way: idle connections without a session
/// are closed oldest first so that newcomers get in; started sessions are never closed for them.
@Suite("Connection admission")
struct ConnectionAdmissionTests {
    typealias Admission = ConnectionAdmission<String>

    private func admission(connections: Int = 100, unstarted: Int = 100, perPeer: Int = 100) -> Admission {
        Admission(limits: .init(maxConnections: connections, maxUnstarted: unstarted, maxPerPeer: perPeer))
    }

    /// Admits from `peer` as `serial`, returning the evictions.
    private func open(_ admission: inout Admission, _ serial: UInt64, from peer: String) -> [UInt64]? {
        guard case .admit(let evicting) = admission.arrive(from: peer) else { return nil }
        admission.opened(serial, from: peer)
        return evicting
    }

    @Test func belowEveryLimitNobodyGivesWay() {
        var admission = admission()
        for serial in 1...10 { #expect(open(&admission, UInt64(serial), from: "a") == []) }
        #expect(admission.openCount == 10 && admission.unstartedCount == 10)
    }

    @Test func theOldestUnstartedConnectionMakesRoomAtTheUnstartedLimit() {
        var admission = admission(unstarted: 3)
        for serial in 1...3 { _ = open(&admission, UInt64(serial), from: "idle") }
        admission.started(2)
        #expect(open(&admission, 4, from: "idle") == [])  // 2 started: 1, 3 unstarted
        #expect(open(&admission, 5, from: "new") == [1])
        #expect(open(&admission, 6, from: "new") == [3])
        #expect(admission.unstartedCount == 3 && admission.openCount == 4)
    }

    @Test func atMaxConnectionsAnUnstartedOneGivesWayAndStartedOnesNever() {
        var admission = admission(connections: 3)
        for serial in 1...3 { _ = open(&admission, UInt64(serial), from: "a") }
        admission.started(1)
        admission.started(3)
        #expect(open(&admission, 4, from: "b") == [2])
        admission.started(4)
        #expect(admission.arrive(from: "b") == .refuse(.serverFull))
        admission.closed(1)
        #expect(open(&admission, 5, from: "b") == [])
    }

    @Test func aPeerAtItsLimitLosesItsOwnOldestUnstartedConnectionNotAnotherPeers() {
        var admission = admission(perPeer: 2)
        _ = open(&admission, 1, from: "other")
        _ = open(&admission, 2, from: "flood")
        _ = open(&admission, 3, from: "flood")
        #expect(open(&admission, 4, from: "flood") == [2])
        admission.started(3)
        admission.started(4)
        #expect(admission.arrive(from: "flood") == .refuse(.peerFull))
        #expect(admission.count(of: "flood") == 2 && admission.count(of: "other") == 1)
        #expect(open(&admission, 5, from: "other") == [])
    }

    @Test func closingAnEvictedOrUnknownConnectionChangesNothing() {
        var admission = admission(unstarted: 1)
        _ = open(&admission, 1, from: "a")
        #expect(open(&admission, 2, from: "a") == [1])
        admission.closed(1)
        admission.closed(99)
        #expect(admission.openCount == 1 && admission.count(of: "a") == 1 && admission.unstartedCount == 1)
        admission.closed(2)
        #expect(admission.openCount == 0 && admission.count(of: "a") == 0 && admission.unstartedCount == 0)
    }
}
