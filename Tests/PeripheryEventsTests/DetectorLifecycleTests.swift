import Foundation
import PeripheryCore
import Testing

@testable import PeripheryEvents

/// Resets, clocks that jump, missing ego motion, the end of a run and the run's summary.
struct DetectorLifecycleTests {
    private static let approach = ForwardCollisionTests.approach

    /// A detector whose forward-collision warning on track 1 started at frame 7.
    private func warned() throws -> SafetyEventDetector {
        var detector = try SafetyEventDetector(configuration: EventScene.direct)
        _ = EventScene.run(&detector, ranges: Array(Self.approach[0...7]))
        return detector
    }

    @Test func trackerResetEndsEventsAndForgetsHistories() throws {
        var detector = try warned()
        let assessment = detector.update(
            timestamp: EventScene.time(8), ego: EventScene.ego(speed: 20), tracks: [EventScene.vehicle(1, range: 26.7)], trackerReset: true)
        // Ended at the reset frame without figures: id 1 may now be another vehicle.
        #expect(assessment.reports == [SafetyEventReport(type: .forwardCollision, phase: .end, track: 1, timeToCollision: nil, headway: nil, range: nil)])
        #expect(detector.finishedEvents.map(\.end) == [EventScene.time(8)])
        // Its range history starts afresh: one sample, no closing speed.
        #expect(assessment.lead?.track == 1 && assessment.lead?.closing == nil)
    }

    @Test func timeGoingBackEndsEventsAtTheLastTime() throws {
        var detector = try warned()
        let assessment = detector.update(timestamp: 0, ego: EventScene.ego(speed: 20), tracks: [EventScene.vehicle(1, range: 26.7)])
        #expect(assessment.reports.map(\.phase) == [.end])
        #expect(detector.finishedEvents.first?.end == EventScene.time(7))
        #expect(assessment.lead?.closing == nil)
    }

    @Test func nonFiniteTimeEndsEventsAndGivesNoLead() throws {
        var detector = try warned()
        let assessment = detector.update(timestamp: .nan, ego: EventScene.ego(speed: 20), tracks: [EventScene.vehicle(1, range: 26.7)])
        #expect(assessment.reports.map(\.phase) == [.end])
        #expect(assessment.lead == nil && assessment.inPathTracks.isEmpty)
        #expect(detector.finishedEvents.first?.end == EventScene.time(7))
    }

    @Test func withoutEgoMotionNothingStartsButRangesAreMeasured() throws {
        // The approach of the forward-collision test without ego motion: TTC 2.75 s at frame 7, no
        // headway, a straight path, no event.
        var detector = try SafetyEventDetector(configuration: EventScene.direct)
        let assessments = EventScene.run(&detector, ranges: Self.approach, speed: nil)
        #expect(assessments.allSatisfy { $0.reports.isEmpty && $0.ego == nil && $0.path == .straight })
        #expect(abs((assessments[7].lead?.timeToCollision ?? .nan) - 2.75) <= 1e-9)
        #expect(assessments[7].lead?.headway == nil)
        // An invalid ego step is no ego motion either.
        var invalid = try SafetyEventDetector(configuration: EventScene.direct)
        for (k, range) in Self.approach.enumerated() {
            let a = invalid.update(timestamp: EventScene.time(k), ego: EgoDelta(dx: 2, dt: 0.1, valid: false), tracks: [EventScene.vehicle(1, range: range)])
            #expect(a.reports.isEmpty && a.ego == nil)
        }
    }

    @Test func losingEgoMotionEndsAWarning() throws {
        var detector = try warned()
        let assessment = detector.update(timestamp: EventScene.time(8), ego: nil, tracks: [EventScene.vehicle(1, range: 26.7)])
        #expect(assessment.reports.map(\.phase) == [.end])
        // The end report still has the vehicle's figures: TTC 26.7 / 9 s, no headway.
        #expect(abs((assessment.reports.first?.timeToCollision ?? .nan) - 26.7 / 9) <= 1e-9)
        #expect(assessment.reports.first?.headway == nil)
    }

    @Test func finishEndsOpenEventsWithTheirLastFigures() throws {
        var detector = try SafetyEventDetector(configuration: EventScene.exactRanges)
        _ = EventScene.run(&detector, ranges: Array(repeating: 16, count: 60))
        let reports = detector.finish()
        #expect(reports.count == 1)
        #expect(reports.first?.type == .closeFollowing && reports.first?.phase == .end)
        #expect(abs((reports.first?.headway ?? .nan) - 0.8) <= 1e-9 && abs((reports.first?.range ?? .nan) - 16) <= 1e-9)
        #expect(detector.finishedEvents.first?.end == EventScene.time(59))
        #expect(detector.finish().isEmpty)
    }

    @Test func summaryCountsRatesAndWorstFigures() throws {
        var detector = try SafetyEventDetector(configuration: EventScene.direct)
        _ = EventScene.run(&detector, ranges: Self.approach)
        let summary = detector.summary()
        #expect(summary.count(.forwardCollision) == 1 && summary.count(.closeFollowing) == 0 && summary.count(.cutIn) == 0)
        // The frames spanned 0 to 1.1 s.
        #expect(abs(summary.durationSeconds - 1.1) <= 1e-9)
        #expect(abs((summary.eventsPerHour ?? .nan) - 3600 / 1.1) <= 1e-6)
        #expect(detector.summary(durationSeconds: 1800).eventsPerHour(.forwardCollision) == 2)
        #expect(detector.summary(durationSeconds: 0).eventsPerHour == nil)
        // Worst TTC held for 3 frames: TTCs 2.95, 2.85, 2.75 s on frames 5–7 (largest 2.95) and
        // later runs all hold larger values. Worst headway held for 3 frames: the last three
        // ranges, 25.9, 25.1 and 24.6 m, at 20 m/s: 1.295 s.
        #expect(abs((summary.minimumTimeToCollision ?? .nan) - 2.95) <= 1e-9)
        #expect(abs((summary.minimumHeadway ?? .nan) - 25.9 / 20) <= 1e-9)
    }

    @Test func resetForgetsEverything() throws {
        var detector = try warned()
        _ = detector.finish()
        detector.reset()
        #expect(detector.finishedEvents.isEmpty)
        #expect(detector.summary().durationSeconds == 0)
        #expect(detector.configuration == EventScene.direct)
    }
}
