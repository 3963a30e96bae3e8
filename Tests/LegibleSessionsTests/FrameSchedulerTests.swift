import LegibleCore
import LegibleSessions
import LegibleTesting
import Testing

/// The scheduler and its engine pool under a manual clock with simulated engines (load
/// 100 ms, read 100 ms unless a test says otherwise): deterministic, no threads, no sleeps.
@Suite("Frame scheduler")
struct FrameSchedulerTests {
    let eng = EngineKey(models: ["eng"])
    let hindi = EngineKey(models: ["Devanagari"])
    let ms = Duration.milliseconds

    func pool(workers: Int = 2, replicas: Int = 1, idle: Duration? = nil, customEngines: Int = 4, megabytes: Int = 512)
        -> SimulatedPool<Int>
    {
        SimulatedPool(
            policy: PoolPolicy(
                workers: workers, replicasPerScript: replicas, idleTimeout: idle, keepLoaded: [eng],
                maxCustomEngines: customEngines, customEngineMegabytes: megabytes),
            megabytes: { key in key.models.count * 100 })
    }

    @Test func engineLoadsOnFirstUseAndFramesWaitForIt() {
        var sim = pool()
        #expect(sim.loads.isEmpty)
        sim.addSession(1, key: eng)
        #expect(sim.loads == [EngineID(key: eng, replica: 0)])
        sim.send(1, from: 1)
        sim.run(for: ms(50))
        #expect(sim.started.isEmpty, "no engine yet")
        sim.run(for: ms(300))
        #expect(
            sim.fates[.init(session: 1, id: 1, sent: .zero)]
                == .read(engine: EngineID(key: eng, replica: 0), started: ms(100), finished: ms(200)))
        // A second session of the same key shares the engine: no second load.
        sim.addSession(2, key: eng)
        #expect(sim.loads.count == 1)
    }

    @Test func burstDropsAllButTheNewestAndEveryFrameHasOneFate() {
        var sim = pool()
        sim.addSession(1, key: eng)
        sim.run(for: ms(100))
        for id in 1...20 { sim.send(id, from: 1) }  // at once
        sim.run(for: ms(1000))
        #expect(sim.fates.count == 20)
        // The first goes to the idle engine, 2...19 are replaced while it reads, 20 is read next.
        #expect(sim.started.map(\.id) == [1, 20])
        #expect(sim.fates.values.filter { if case .dropped = $0 { return true } else { return false } }.count == 18)
        #expect(sim.scheduler.droppedCount == 18)
    }

    @Test func roundRobinAcrossSessionsSoAFastCameraCannotStarveASlowOne() {
        var sim = pool(workers: 1)
        sim.addSession(1, key: eng)
        sim.addSession(2, key: eng)
        sim.run(for: ms(100))
        // Session 1 at 60 fps, session 2 at 5 fps, for 3 s; each read takes 100 ms.
        var id = 0
        var t = ms(100)
        while t < ms(3100) {
            sim.run(until: t)
            id += 1
            sim.send(id, from: 1)
            if id % 12 == 0 { sim.send(id, from: 2) }
            t += Duration.seconds(1) / 60
        }
        sim.run(for: ms(500))
        let fast = sim.readCount(of: 1)
        let slow = sim.readCount(of: 2)
        // Session 2 sent 15 frames and each was read; session 1 got the rest of the engine.
        #expect(slow == 15)
        #expect(fast >= 13)
        // Whenever both waited, they alternated: never two of session 1 in a row while 2 waited.
        let order = sim.started.map(\.session)
        for index in order.indices.dropFirst(2) where order[index] == 2 {
            #expect(
                !(order[index - 1] == 1 && order[index - 2] == 1
                    && sim.started[index].sent <= sim.started[index - 2].sent))
        }
    }

    @Test func maxFrameAgeDropsStalePendingFramesWhenAnEngineFreesUp() {
        var sim = pool(workers: 1)
        sim.addSession(1, key: eng)
        sim.addSession(2, key: eng)
        sim.run(for: ms(100))
        sim.send(1, from: 1, maxAge: ms(50))  // read at once
        sim.send(2, from: 2, maxAge: ms(50))  // waits 100 ms: too old
        sim.send(3, from: 2, maxAge: ms(500))  // replaces it... but it is newer and young enough
        sim.run(for: ms(300))
        #expect(sim.fates[.init(session: 2, id: 2, sent: ms(100))] == .dropped(at: ms(100)))
        guard case .read? = sim.fates[.init(session: 2, id: 3, sent: ms(100))] else {
            Issue.record("frame 3 was not read: \(sim.fates)")
            return
        }
        sim.send(4, from: 1, maxAge: ms(50))  // read at once again
        sim.send(5, from: 2, maxAge: ms(50))  // waits behind 4 for 100 ms
        sim.run(for: ms(300))
        #expect(sim.fates[.init(session: 2, id: 5, sent: ms(400))] == .expired(at: ms(500)))
    }

    @Test func workersCapRecognitionsAcrossEveryKey() {
        var sim = pool(workers: 1)
        sim.addSession(1, key: eng)
        sim.addSession(2, key: hindi)
        sim.run(for: ms(100))
        sim.send(1, from: 1)
        sim.send(2, from: 2)
        sim.run(for: ms(1000))
        #expect(sim.peakRunning == 1)
        #expect(sim.readCount(of: 1) == 1 && sim.readCount(of: 2) == 1)
    }

    @Test func replicasLoadOnlyWhileSessionsWaitAndServeTogether() {
        var sim = pool(workers: 2, replicas: 2)
        for session in 1...2 { sim.addSession(session, key: eng) }
        #expect(sim.loads.count == 1)
        sim.run(for: ms(100))
        sim.send(1, from: 1)
        #expect(sim.loads.count == 1, "one session, one idle engine: nothing to add")
        sim.send(2, from: 2)  // waits while replica 0 is busy: replica 1 loads
        #expect(sim.loads == [EngineID(key: eng, replica: 0), EngineID(key: eng, replica: 1)])
        sim.run(for: ms(250))
        #expect(sim.readCount(of: 1) == 1 && sim.readCount(of: 2) == 1)
        // From now on both read at once.
        sim.send(3, from: 1)
        sim.send(4, from: 2)
        #expect(sim.scheduler.running == 2)
        #expect(sim.loads.count == 2, "never more than --replicas-per-script")
    }

    @Test func idleEnginesUnloadButTheDefaultScriptsFirstStays() {
        var sim = pool(workers: 2, replicas: 2, idle: .seconds(5))
        sim.addSession(1, key: eng)
        sim.addSession(2, key: eng)
        sim.addSession(3, key: hindi)
        sim.run(for: ms(100))
        sim.send(1, from: 1)
        sim.send(2, from: 2)
        sim.send(3, from: 3)
        sim.run(for: .seconds(10))
        #expect(Set(sim.unloads) == [EngineID(key: eng, replica: 1), EngineID(key: hindi, replica: 0)])
        #expect(sim.scheduler.pool.keys.map(\.self) == [EngineID(key: eng, replica: 0)])
        // The unloaded key comes back on its next frame.
        sim.send(4, from: 3)
        sim.run(for: ms(300))
        #expect(sim.readCount(of: 3) == 2)
    }

    @Test func customEnginesLiveInABoundedLRU() {
        var sim = pool(workers: 2, customEngines: 2)
        let keys = (1...3).map { EngineKey(models: ["eng"], customWords: ["word\($0)"]) }
        for (index, key) in keys.enumerated() {
            sim.addSession(index + 1, key: key)
            sim.run(for: ms(200))
            sim.send(index + 1, from: index + 1)
            sim.run(for: ms(200))
        }
        // The third key evicted the least recently used idle one, the first.
        #expect(sim.unloads == [EngineID(key: keys[0], replica: 0)])
        #expect(Set(sim.scheduler.pool.keys.map(\.key)) == [keys[1], keys[2]])
        #expect((1...3).allSatisfy { sim.readCount(of: $0) == 1 })
    }

    @Test func customEnginesAreBoundedByMemoryToo() {
        // 100 MB per model; two models per key; a budget of 250 MB fits one such engine.
        var sim = pool(workers: 2, customEngines: 4, megabytes: 250)
        let first = EngineKey(models: ["eng", "Devanagari"])
        let second = EngineKey(models: ["eng", "HanS"])
        sim.addSession(1, key: first)
        sim.run(for: ms(200))
        sim.send(1, from: 1)  // busy until 300 ms
        sim.addSession(2, key: second)
        sim.send(2, from: 2)
        #expect(sim.loads.count == 1, "no room while the first is busy")
        sim.run(for: ms(600))
        #expect(sim.unloads == [EngineID(key: first, replica: 0)])
        #expect(sim.readCount(of: 2) == 1)
    }

    @Test func removedSessionHandsBackItsPendingFrameAndItsRecognitionToCancel() {
        var sim = pool(workers: 1)
        sim.addSession(1, key: eng)
        sim.run(for: ms(100))
        sim.send(1, from: 1)
        sim.send(2, from: 1)
        let inFlight = sim.remove(1)
        #expect(inFlight?.engine == EngineID(key: eng, replica: 0))
        #expect(inFlight?.serial == 1)
        #expect(sim.fates[.init(session: 1, id: 2, sent: ms(100))] == .dropped(at: ms(100)))
        // The engine finishes (or is cancelled) and serves the next session.
        sim.addSession(2, key: eng)
        sim.send(3, from: 2)
        sim.run(for: ms(300))
        #expect(sim.readCount(of: 2) == 1)
    }

    @Test func aSessionThatChangesKeyIsReadByTheNewKeysEngine() {
        var sim = pool()
        sim.addSession(1, key: eng)
        sim.run(for: ms(100))
        sim.changeKey(of: 1, to: hindi)
        #expect(sim.loads.last == EngineID(key: hindi, replica: 0))
        sim.run(for: ms(100))
        sim.send(1, from: 1)
        sim.run(for: ms(200))
        guard case .read(let engine, started: _, finished: _)? = sim.fates[.init(session: 1, id: 1, sent: ms(200))]
        else {
            Issue.record("not read")
            return
        }
        #expect(engine.key == hindi)
    }

    @Test func aFailedLoadFailsTheFramesWaitingForIt() {
        var scheduler = FrameScheduler<Int, Int>(policy: PoolPolicy(workers: 1))
        let actions = scheduler.addSession(1, key: hindi, now: .zero)
        let outcome = scheduler.submit(7, for: 1, now: .zero)
        #expect(outcome.actions.dispatches.isEmpty)
        let failed = scheduler.engineFailed(
            actions.load[0], error: LegibleError(.failedPrecondition, "no model"), now: .zero)
        #expect(failed.failed.map(\.job) == [7])
        #expect(failed.failed.first?.error.code == .failedPrecondition)
    }

    /// A frame read script by script: the first script's engine hands the rest of it to
    /// another key's engine, where it goes before the frames waiting there, and the session's
    /// newer frame waits until the handed-off part is done.
    @Test func aHandedOffFrameGoesAheadOnTheOtherKeysEngine() {
        var scheduler = FrameScheduler<Int, String>(policy: PoolPolicy(workers: 2))
        let (latin, hindi) = (EngineID(key: eng, replica: 0), EngineID(key: self.hindi, replica: 0))
        _ = scheduler.addSession(1, key: eng, now: .zero)
        _ = scheduler.addSession(2, key: self.hindi, now: .zero)
        _ = scheduler.engineLoaded(latin, now: .zero)
        _ = scheduler.engineLoaded(hindi, now: .zero)
        #expect(scheduler.submit("1a", for: 1, now: ms(1)).actions.dispatches.map(\.job) == ["1a"])
        #expect(scheduler.submit("2a", for: 2, now: ms(2)).actions.dispatches.map(\.job) == ["2a"])
        #expect(scheduler.submit("2b", for: 2, now: ms(3)).actions.dispatches.isEmpty)
        #expect(scheduler.submit("1b", for: 1, now: ms(4)).actions.dispatches.isEmpty)

        let handed = scheduler.handOff(engine: latin, job: "1a, Devanagari lines", to: self.hindi, now: ms(50))
        #expect(handed.dispatches.isEmpty, "the Devanagari engine is busy, and session 1's 1b waits for 1a")
        #expect(handed.load.isEmpty)
        #expect(scheduler.isBusy(1))
        #expect(scheduler.running == 1)

        let next = scheduler.completed(engine: hindi, now: ms(100))
        #expect(next.dispatches.map(\.job) == ["1a, Devanagari lines"])
        #expect(next.dispatches.first?.waited == ms(50))

        let after = scheduler.completed(engine: hindi, now: ms(150))
        #expect(Set(after.dispatches.map(\.job)) == ["1b", "2b"])
    }

    @Test func aHandedOffFrameOfAGoneSessionIsDroppedAndOneWhoseEngineFailsFails() {
        var scheduler = FrameScheduler<Int, String>(policy: PoolPolicy(workers: 2))
        let latin = EngineID(key: eng, replica: 0)
        _ = scheduler.addSession(1, key: eng, now: .zero)
        _ = scheduler.addSession(2, key: eng, now: .zero)
        _ = scheduler.engineLoaded(latin, now: .zero)
        _ = scheduler.submit("1a", for: 1, now: ms(1))
        _ = scheduler.submit("2a", for: 2, now: ms(2))
        // The Devanagari engine is not loaded yet: handing off loads it.
        let handed = scheduler.handOff(engine: latin, job: "1a rest", to: hindi, now: ms(10))
        #expect(handed.load == [EngineID(key: hindi, replica: 0)])
        #expect(handed.dispatches.map(\.job) == ["2a"])
        _ = scheduler.removeSession(1)
        let loaded = scheduler.engineLoaded(EngineID(key: hindi, replica: 0), now: ms(20))
        #expect(loaded.dispatches.isEmpty, "session 1 is gone: its handed-off frame is not read")

        _ = scheduler.addSession(3, key: eng, now: ms(30))
        _ = scheduler.completed(engine: latin, now: ms(30))
        _ = scheduler.submit("3a", for: 3, now: ms(31))
        _ = scheduler.handOff(engine: latin, job: "3a rest", to: EngineKey(models: ["kor"]), now: ms(40))
        let failed = scheduler.engineFailed(
            EngineID(key: EngineKey(models: ["kor"]), replica: 0), error: LegibleError(.failedPrecondition, "no kor"),
            now: ms(50))
        #expect(failed.failed.map(\.job) == ["3a rest"])
        #expect(!scheduler.isBusy(3))
    }
}
