import Testing

@testable import LegibleLoadCore

@Suite("Open-loop schedule")
struct ScheduleTests {
    let ms: Nanoseconds = 1_000_000

    @Test func frameTimesAndCount() {
        let schedule = OpenLoopSchedule(sessions: 1, framesPerSecond: 5, duration: 3 * nanosecondsPerSecond, rampUp: 0)
        #expect(schedule.framesPerSession == 15)
        #expect(schedule.totalFrames == 15)
        let times = Array(schedule.makeCursor()).map(\.time)
        #expect(times == (0..<15).map { Nanoseconds($0) * 200 * ms })
        #expect(schedule.window == 3 * nanosecondsPerSecond)
        #expect(schedule.requestedRate == 5)
    }

    @Test func countIsSessionsTimesFpsTimesDuration() {
        for (sessions, fps, seconds) in [(2, 5.0, 3.0), (4, 20.0, 3.0), (3, 30.0, 0.1), (8, 10.0, 20.0), (1, 0.5, 4.0)]
        {
            let schedule = OpenLoopSchedule(
                sessions: sessions, framesPerSecond: fps, duration: Nanoseconds(seconds * 1e9),
                rampUp: OpenLoopSchedule.defaultRampUp(framesPerSecond: fps))
            #expect(schedule.totalFrames == Int((Double(sessions) * fps * seconds).rounded()))
            #expect(Array(schedule.makeCursor()).count == schedule.totalFrames)
        }
        // A duration that is not a whole number of frame intervals rounds up: i / fps < duration.
        let partial = OpenLoopSchedule(sessions: 1, framesPerSecond: 10, duration: 250 * ms, rampUp: 0)
        #expect(partial.framesPerSession == 3)
    }

    @Test func rampUpSpreadsSessionStarts() {
        let schedule = OpenLoopSchedule(
            sessions: 4, framesPerSecond: 10, duration: nanosecondsPerSecond, rampUp: 2 * nanosecondsPerSecond)
        #expect((0..<4).map { schedule.start(ofSession: $0) } == [0, 500 * ms, 1000 * ms, 1500 * ms])
        #expect(schedule.sendTime(session: 2, frame: 3) == 1300 * ms)
        #expect(schedule.window == 2500 * ms)
        // Each session still sends its whole duration's frames.
        let frames = Array(schedule.makeCursor())
        for k in 0..<4 {
            let own = frames.filter { $0.session == k }
            #expect(own.map(\.index) == Array(0..<10))
            #expect(own.first!.time == schedule.start(ofSession: k))
            #expect(own.last!.isLastOfSession && own.dropLast().allSatisfy { !$0.isLastOfSession })
        }
    }

    @Test func defaultRampStaggersOverOneFrameInterval() {
        let ramp = OpenLoopSchedule.defaultRampUp(framesPerSecond: 5)
        #expect(ramp == 200 * ms)
        let schedule = OpenLoopSchedule(sessions: 2, framesPerSecond: 5, duration: nanosecondsPerSecond, rampUp: ramp)
        #expect(Array(schedule.makeCursor()).prefix(4).map(\.time) == [0, 100 * ms, 200 * ms, 300 * ms])
    }

    @Test func cursorIsInTimeOrderWithTiesBySession() {
        let schedule = OpenLoopSchedule(sessions: 3, framesPerSecond: 7, duration: 2 * nanosecondsPerSecond, rampUp: 0)
        let frames = Array(schedule.makeCursor())
        #expect(frames.count == 42)
        for (a, b) in zip(frames, frames.dropFirst()) {
            #expect(a.time < b.time || (a.time == b.time && a.session < b.session))
        }
        #expect(frames.prefix(3).map(\.session) == [0, 1, 2])
    }

    @Test func maxFramesKeepsTheEarliest() {
        let schedule = OpenLoopSchedule(
            sessions: 2, framesPerSecond: 10, duration: nanosecondsPerSecond, rampUp: 100 * ms, maxFrames: 5)
        #expect(schedule.totalFrames == 5)
        var cursor = schedule.makeCursor()
        var frames: [ScheduledFrame] = []
        while let frame = cursor.next() { frames.append(frame) }
        #expect(frames.map(\.time) == [0, 50 * ms, 100 * ms, 150 * ms, 200 * ms])
        #expect(frames.map(\.session) == [0, 1, 0, 1, 0])
        #expect(frames.last!.isLastOfSession)
        #expect(cursor.isExhausted && cursor.nextTime == nil)
    }
}
