import LegibleSessions
import LegibleWire
import Testing

@Suite("Skip policy")
struct SkipPolicyTests {
    /// Round numbers, so each rule is tested at its edges independently of the calibration.
    let thresholds = SkipPolicy.Thresholds(
        unchanged: 1, moving: 4, settled: 2, maxUnchangedSkips: 5, maxUnchangedInterval: .seconds(2))

    /// Feeds frames 100 ms apart with the given options.
    struct Feeder {
        var policy: SkipPolicy
        var time: Duration = .zero
        var recognizeUnchanged = false
        var waitForSteady = false

        mutating func next(scene: Float?, motion: Float?, after gap: Duration = .milliseconds(100))
            -> SkipPolicy.Decision
        {
            time += gap
            return policy.decide(
                sceneDifference: scene, motion: motion, recognizeUnchanged: recognizeUnchanged,
                waitForSteady: waitForSteady,
                now: time)
        }
    }

    @Test func firstFrameIsRead() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds))
        #expect(feeder.next(scene: nil, motion: nil) == .recognize)
    }

    @Test func unchangedBelowTheThresholdIsSkipped() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds))
        _ = feeder.next(scene: nil, motion: nil)
        #expect(feeder.next(scene: 0.2, motion: 0.2) == .skip(.unchanged))
        #expect(feeder.next(scene: 0.99, motion: 0.3) == .skip(.unchanged))
        #expect(feeder.policy.consecutiveUnchangedSkips == 2)
        #expect(feeder.next(scene: 1.0, motion: 0.3) == .recognize)  // at the threshold: changed
        #expect(feeder.policy.consecutiveUnchangedSkips == 0)
        #expect(feeder.next(scene: 7, motion: 0.3) == .recognize)
    }

    @Test func recognizeUnchangedReadsEverything() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds), recognizeUnchanged: true)
        _ = feeder.next(scene: nil, motion: nil)
        for _ in 0..<10 { #expect(feeder.next(scene: 0, motion: 0) == .recognize) }
    }

    @Test func movingIsSkippedOnlyWhenWaitingForSteady() {
        var waiting = Feeder(policy: SkipPolicy(thresholds: thresholds), waitForSteady: true)
        var reading = Feeder(policy: SkipPolicy(thresholds: thresholds))
        _ = waiting.next(scene: nil, motion: nil)
        _ = reading.next(scene: nil, motion: nil)
        #expect(waiting.next(scene: 6, motion: 4.5) == .skip(.moving))
        #expect(reading.next(scene: 6, motion: 4.5) == .recognize)
        // Both know the camera moves; only one acts on it.
        #expect(waiting.policy.isMoving && reading.policy.isMoving)
        // Moving wins over unchanged: a shake back and forth can land near the last frame read.
        #expect(waiting.next(scene: 0.5, motion: 5) == .skip(.moving))
    }

    @Test func movingHasHysteresis() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds), waitForSteady: true)
        _ = feeder.next(scene: nil, motion: nil)
        // Below `moving` a steady camera stays steady.
        #expect(feeder.next(scene: 3, motion: 3.9) == .recognize)
        #expect(feeder.next(scene: 3, motion: 4.0) == .recognize)  // not above
        #expect(feeder.next(scene: 3, motion: 4.1) == .skip(.moving))
        // Once moving, motion between the thresholds keeps it moving...
        #expect(feeder.next(scene: 3, motion: 3.0) == .skip(.moving))
        #expect(feeder.next(scene: 3, motion: 2.0) == .skip(.moving))  // not below
        // ...until it falls under `settled`.
        #expect(feeder.next(scene: 3, motion: 1.9) == .recognize)
        #expect(!feeder.policy.isMoving)
        #expect(feeder.next(scene: 3, motion: 3.0) == .recognize)
    }

    @Test func settledFrameOfTheSameSceneIsStillUnchanged() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds), waitForSteady: true)
        _ = feeder.next(scene: nil, motion: nil)
        #expect(feeder.next(scene: 5, motion: 6) == .skip(.moving))
        // The camera came back to where it was read.
        #expect(feeder.next(scene: 0.3, motion: 1) == .skip(.unchanged))
    }

    @Test func missingMotionKeepsThePhase() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds), waitForSteady: true)
        _ = feeder.next(scene: nil, motion: nil)
        #expect(feeder.next(scene: 5, motion: 6) == .skip(.moving))
        #expect(feeder.next(scene: 5, motion: nil) == .skip(.moving))
    }

    @Test func turningWaitForSteadyOnTakesEffectAtOnce() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds))
        _ = feeder.next(scene: nil, motion: nil)
        #expect(feeder.next(scene: 5, motion: 6) == .recognize)
        feeder.waitForSteady = true
        #expect(feeder.next(scene: 5, motion: 3) == .skip(.moving))
    }

    @Test func unchangedSkipsAreLimitedByCount() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds))
        _ = feeder.next(scene: nil, motion: nil)
        for _ in 0..<2 {
            for skip in 1...5 {
                #expect(
                    feeder.next(scene: 0.1, motion: 0.1, after: .milliseconds(10)) == .skip(.unchanged), "skip \(skip)")
            }
            // The sixth is read anyway; the count starts over.
            #expect(feeder.next(scene: 0.1, motion: 0.1, after: .milliseconds(10)) == .recognize)
            #expect(feeder.policy.consecutiveUnchangedSkips == 0)
        }
    }

    @Test func unchangedSkipsAreLimitedByTime() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds))
        _ = feeder.next(scene: nil, motion: nil)  // read at 0.1 s
        #expect(feeder.next(scene: 0.1, motion: 0.1, after: .milliseconds(1000)) == .skip(.unchanged))
        #expect(feeder.next(scene: 0.1, motion: 0.1, after: .milliseconds(999)) == .skip(.unchanged))
        #expect(feeder.next(scene: 0.1, motion: 0.1, after: .milliseconds(1)) == .recognize)  // 2 s since the read
        #expect(feeder.next(scene: 0.1, motion: 0.1, after: .milliseconds(1)) == .skip(.unchanged))
    }

    @Test func movingTimeCountsTowardTheLimitButMovingSkipsHaveNone() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds), waitForSteady: true)
        _ = feeder.next(scene: nil, motion: nil)
        for _ in 0..<50 { #expect(feeder.next(scene: 8, motion: 6) == .skip(.moving)) }
        #expect(feeder.policy.consecutiveUnchangedSkips == 0)
        // Settled after 5 s back on the scene last read: read at once, it has been too long.
        #expect(feeder.next(scene: 0.2, motion: 0.5) == .recognize)
    }

    @Test func resetForgetsThePhaseAndTheCounts() {
        var feeder = Feeder(policy: SkipPolicy(thresholds: thresholds), waitForSteady: true)
        _ = feeder.next(scene: nil, motion: nil)
        _ = feeder.next(scene: 0.1, motion: 0.1)
        _ = feeder.next(scene: 5, motion: 6)
        feeder.policy.reset()
        #expect(!feeder.policy.isMoving && feeder.policy.consecutiveUnchangedSkips == 0)
        #expect(feeder.next(scene: 5, motion: 3) == .recognize)
    }

    @Test func calibratedThresholdsAreOrdered() {
        let calibrated = SkipPolicy.Thresholds.calibrated
        #expect(calibrated.unchanged < calibrated.settled && calibrated.settled < calibrated.moving)
        #expect(calibrated.maxUnchangedSkips > 0 && calibrated.maxUnchangedInterval > .zero)
    }
}
