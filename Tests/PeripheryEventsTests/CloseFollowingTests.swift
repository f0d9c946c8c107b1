import Foundation
import Testing

@testable import PeripheryEvents

/// Close following: headway under 1.0 s held for 5 s at 20 m/s, its hysteresis and its gates.
struct CloseFollowingTests {
    @Test func startsAfterTheMinimumDurationAndEndsBeyondTheHysteresis() throws {
        // 16 m at 20 m/s is a headway of 0.8 s from t = 0: the event starts at 5.0 s (frame 50).
        // At 22 m (1.1 s, within the 0.2 s hysteresis) it stays on; at 25 m (1.25 s) it ends.
        let ranges = Array(repeating: 16.0, count: 53) + [22, 22, 25, 25]
        var detector = SafetyEventDetector()
        let assessments = EventScene.run(&detector, ranges: ranges)
        let reports = EventScene.reports(assessments, .closeFollowing)
        #expect(reports.map(\.frame) == [50, 51, 52, 53, 54, 55])
        #expect(reports.map(\.report.phase) == [.start, .update, .update, .update, .update, .end])
        #expect(abs((reports.first?.report.headway ?? .nan) - 0.8) <= 1e-9)
        #expect(abs((reports.last?.report.headway ?? .nan) - 1.25) <= 1e-9)
        // A constant range has no closing speed to speak of: no TTC, no forward-collision warning.
        #expect(reports.first?.report.timeToCollision == nil)
        #expect(EventScene.reports(assessments, .forwardCollision).isEmpty)

        let event = try #require(detector.finishedEvents.first)
        #expect(event.type == .closeFollowing && event.track == 1)
        #expect(event.onset == 0 && event.start == EventScene.time(50) && event.end == EventScene.time(55))
        #expect(abs((event.minimumHeadway ?? .nan) - 0.8) <= 1e-9)
        #expect(abs(event.duration - 5.5) <= 1e-9)
    }

    @Test func aBreakInTheHoldStartsItAgain() throws {
        // 0.8 s for 3 s, one frame at 1.3 s (26 m, beyond the hysteresis), then 0.8 s again from
        // frame 31: the event starts 5 s later, at frame 81.
        let ranges = Array(repeating: 16.0, count: 30) + [26] + Array(repeating: 16.0, count: 55)
        var detector = SafetyEventDetector()
        let reports = EventScene.reports(EventScene.run(&detector, ranges: ranges), .closeFollowing)
        #expect(reports.first?.frame == 81 && reports.first?.report.phase == .start)
        _ = detector.finish()
        #expect(detector.finishedEvents.first?.onset == EventScene.time(31))
    }

    @Test func headwayWithinTheHysteresisKeepsTheHoldGoing() throws {
        // 0.8 s, then 1.1 s for a second (not under 1.0 s, but within the hysteresis): the hold
        // that began at 0 s goes on, and the event starts at 5.0 s.
        let ranges = Array(repeating: 16.0, count: 20) + Array(repeating: 22.0, count: 10) + Array(repeating: 16.0, count: 25)
        var detector = SafetyEventDetector()
        let reports = EventScene.reports(EventScene.run(&detector, ranges: ranges), .closeFollowing)
        #expect(reports.first?.frame == 50 && reports.first?.report.phase == .start)
    }

    @Test func noEventBelowTheMinimumEgoSpeed() {
        // 8 m at 10 m/s is 0.8 s too, but under 25 mph.
        var detector = SafetyEventDetector()
        let assessments = EventScene.run(&detector, ranges: Array(repeating: 8.0, count: 70), speed: 10)
        #expect(EventScene.reports(assessments, .closeFollowing).isEmpty)
        #expect(abs((assessments[0].lead?.headway ?? .nan) - 0.8) <= 1e-9)
        #expect(detector.summary().minimumHeadway == nil)
    }
}
