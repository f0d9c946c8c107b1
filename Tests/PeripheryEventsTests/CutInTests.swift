import Foundation
import Testing

@testable import PeripheryEvents

/// Cut-ins: a vehicle from the adjacent lane against one that was always in the lane, entries out
/// of range, and the event's end.
struct CutInTests {
    /// The adjacent lane's centre (3.6 m left), moved across 0.4 m a frame from frame 4: outside
    /// (beyond 1.8 + 0.3 m) on frames 0–6, on the margin at frame 7 (2.0 m), inside from frame 8.
    static let lateral = [3.6, 3.6, 3.6, 3.6, 3.2, 2.8, 2.4, 2.0, 1.6, 1.2, 0.8, 0.4] + Array(repeating: 0.0, count: 30)

    private func run(
        _ detector: inout SafetyEventDetector, lateral: [Double], range: (Int) -> Double = { _ in 15 }, speed: Double = 20,
        others: [Int: Double] = [:]
    ) -> [SafetyAssessment] {
        lateral.enumerated().map { k, y in
            let tracks = [EventScene.vehicle(7, range: range(k), y: y)] + others.map { EventScene.vehicle($0.key, range: $0.value) }
            return detector.update(timestamp: EventScene.time(k), ego: EventScene.ego(speed: speed), tracks: tracks)
        }
    }

    @Test func vehicleFromTheAdjacentLaneCutsIn() throws {
        // Inside from frame 8; frames 8, 9, 10 confirm: the cut-in starts at 1.0 s and ends 2 s
        // later, at frame 30. Track 3, always in the lane 20 m ahead, never cuts in.
        var detector = SafetyEventDetector()
        let assessments = run(&detector, lateral: Self.lateral, others: [3: 20])
        let reports = EventScene.reports(assessments, .cutIn)
        #expect(reports.allSatisfy { $0.report.track == 7 })
        #expect(reports.first?.frame == 10 && reports.first?.report.phase == .start)
        #expect(reports.last?.frame == 30 && reports.last?.report.phase == .end)
        #expect(reports.count == 21)
        #expect(abs((reports.first?.report.range ?? .nan) - 15) <= 1e-9)
        #expect(abs((reports.first?.report.headway ?? .nan) - 0.75) <= 1e-9)
        let event = try #require(detector.finishedEvents.first { $0.type == .cutIn })
        #expect(event.onset == EventScene.time(8) && event.start == EventScene.time(10) && event.end == EventScene.time(30))
        #expect(abs((event.minimumRange ?? .nan) - 15) <= 1e-9)
        // Once in, it is the lead.
        #expect(assessments[10].lead?.track == 7)
        #expect(assessments[7].lead?.track == 3)
    }

    @Test func vehicleAlwaysInTheLaneNeverCutsIn() {
        var detector = SafetyEventDetector()
        let assessments = run(&detector, lateral: Array(repeating: 0.3, count: 40))
        #expect(EventScene.reports(assessments, .cutIn).isEmpty)
    }

    @Test func aGlimpseOutsideIsNotEnough() {
        // A vehicle in the lane seen outside for two frames only (a wobble of its detected
        // position), then back in: not a cut-in; three frames outside make one.
        for (framesOutside, cuts) in [(2, false), (3, true)] {
            let lateral = Array(repeating: 0.0, count: 5) + Array(repeating: 2.5, count: framesOutside) + Array(repeating: 0.0, count: 10)
            var detector = SafetyEventDetector()
            let starts = EventScene.reports(run(&detector, lateral: lateral), .cutIn).filter { $0.report.phase == .start }
            #expect(starts.count == (cuts ? 1 : 0))
        }
    }

    @Test func entryBeyondTheRangeIsNotACutIn() {
        // It moves in at 30 m (beyond 25 m), then the gap shrinks to 15 m while it is in the lane.
        var detector = SafetyEventDetector()
        let assessments = run(&detector, lateral: Self.lateral, range: { k in max(15, 30 - Double(max(0, k - 12))) })
        #expect(EventScene.reports(assessments, .cutIn).isEmpty)
    }

    @Test func noCutInWhileTheEgoIsTooSlow() {
        var detector = SafetyEventDetector()
        #expect(EventScene.reports(run(&detector, lateral: Self.lateral, speed: 3), .cutIn).isEmpty)
    }

    @Test func endsWhenTheVehicleLeavesTheCorridorOrIsLost() throws {
        // Back out after the start: 1.2 m is still inside, 1.9 m is not (the corridor's edge is at 1.8 m).
        var detector = SafetyEventDetector()
        let leaving = Array(Self.lateral[0...10]) + [1.2, 1.9, 3.6]
        let reports = EventScene.reports(run(&detector, lateral: leaving), .cutIn)
        #expect(reports.map(\.frame) == [10, 11, 12])
        #expect(reports.map(\.report.phase) == [.start, .update, .end])

        // Lost after the start: the end comes at the next frame, with no figures.
        var lost = SafetyEventDetector()
        _ = run(&lost, lateral: Array(Self.lateral[0...10]))
        let end = lost.update(timestamp: EventScene.time(11), ego: EventScene.ego(speed: 20), tracks: [])
        #expect(end.reports == [SafetyEventReport(type: .cutIn, phase: .end, track: 7, timeToCollision: nil, headway: nil, range: nil)])
        #expect(lost.finishedEvents.first?.end == EventScene.time(11))
    }

    @Test func aCutInCarriesOnAcrossANewTrackId() throws {
        // The tracker loses track 7 on the margin (frame 7) and starts track 9 there, 0.4 m further
        // in and at the same 15 m: track 9 takes on 7's corridor history (seen outside on frames
        // 0–6) with its range history, and cuts in at frame 10, with its onset at frame 8.
        // Without continuity, track 9 was never seen outside and does not cut in.
        for (continuity, cuts) in [(1.0, true), (0.0, false)] {
            var configuration = SafetyEventConfiguration()
            configuration.continuitySeconds = continuity
            var detector = try SafetyEventDetector(configuration: configuration)
            let assessments = Self.lateral.enumerated().map { k, y in
                detector.update(
                    timestamp: EventScene.time(k), ego: EventScene.ego(speed: 20), tracks: [EventScene.vehicle(k < 7 ? 7 : 9, range: 15, y: y)])
            }
            let starts = EventScene.reports(assessments, .cutIn).filter { $0.report.phase == .start }
            #expect(starts.map(\.frame) == (cuts ? [10] : []))
            #expect(starts.allSatisfy { $0.report.track == 9 })
            if cuts { #expect(detector.finishedEvents.first?.onset == EventScene.time(8) && assessments[10].lead?.track == 9) }
        }
    }

    @Test func aCoastedFrameIsNoEvidence() throws {
        // Frame 9 coasted: the entry counts frames 8, 10 and 11, and the cut-in starts at frame 11
        // (onset still frame 8). Frame 13 coasted at a predicted place outside the corridor: the
        // cut-in goes on, and ends 2 s after its start, at frame 31.
        var detector = SafetyEventDetector()
        let assessments = Self.lateral.enumerated().map { k, y in
            var vehicle = EventScene.vehicle(7, range: 15, y: k == 13 ? 3.6 : y)
            vehicle.observed = !(k == 9 || k == 13)
            return detector.update(timestamp: EventScene.time(k), ego: EventScene.ego(speed: 20), tracks: [vehicle])
        }
        let reports = EventScene.reports(assessments, .cutIn)
        #expect(reports.first?.frame == 11 && reports.first?.report.phase == .start)
        #expect(reports.last?.frame == 31 && reports.last?.report.phase == .end)
        #expect(reports.count == 21)
        let event = try #require(detector.finishedEvents.first)
        #expect(event.onset == EventScene.time(8) && event.start == EventScene.time(11))
    }
}
