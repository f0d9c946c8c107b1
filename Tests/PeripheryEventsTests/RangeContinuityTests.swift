import PeripheryCore
import Testing

@testable import PeripheryEvents

/// Which ranges enter a track's history: only those measured at the frame (not a coasting track's
/// predicted place), and a lost track's history carried on by a new track of the same vehicle.
struct RangeContinuityTests {
    /// A lead closing at 10 m/s: 30 m at frame 0.
    static func range(_ k: Int) -> Double { 30 - Double(k) }

    static func step(_ detector: inout SafetyEventDetector, _ k: Int, _ tracks: [TrackedVehicle]) -> SafetyAssessment {
        detector.update(timestamp: EventScene.time(k), ego: EventScene.ego(speed: 20), tracks: tracks)
    }

    static func coasting(_ vehicle: TrackedVehicle) -> TrackedVehicle {
        var vehicle = vehicle
        vehicle.observed = false
        return vehicle
    }

    @Test func aCoastingTracksPredictedRangeIsNotAMeasurement() throws {
        var detector = try SafetyEventDetector(configuration: EventScene.exactRanges)
        for k in 0..<5 { _ = Self.step(&detector, k, [EventScene.vehicle(1, range: Self.range(k))]) }
        // Two frames coasted at the tracker's prediction (here 5 m too near): the closing speed
        // stays the line through the five measured ranges, 10 m/s; the range shown is the track's.
        for k in 5..<7 {
            let lead = try #require(Self.step(&detector, k, [Self.coasting(EventScene.vehicle(1, range: Self.range(k) - 5))]).lead)
            #expect(abs((lead.closing?.speed ?? .nan) - 10) <= 1e-9 && lead.range == Self.range(k) - 5)
        }
        #expect(detector.histories[1]?.samples.count == 5)
        let lead = try #require(Self.step(&detector, 7, [EventScene.vehicle(1, range: Self.range(7))]).lead)
        #expect(abs((lead.closing?.speed ?? .nan) - 10) <= 1e-9 && detector.histories[1]?.samples.count == 6)
    }

    @Test func aNewTrackWhereTheLostOnesHistoryPutsItCarriesItOn() throws {
        var detector = try SafetyEventDetector(configuration: EventScene.exactRanges)
        for k in 0..<8 { _ = Self.step(&detector, k, [EventScene.vehicle(1, range: Self.range(k))]) }
        // Track 1 is lost for two frames; track 2 appears at frame 10, 1.5 m beyond the 20 m that
        // track 1's history predicts (within the 2 m gate), in the same lane.
        _ = Self.step(&detector, 8, [])
        _ = Self.step(&detector, 9, [])
        let lead = try #require(Self.step(&detector, 10, [EventScene.vehicle(2, range: 21.5)]).lead)
        #expect(lead.track == 2 && detector.histories[2]?.samples.count == 9)
        // The line through 30 … 23 m and 21.5 m at 1.0 s: −Σ(t − t̄)(R − R̄) / Σ(t − t̄)².
        let times: [Double] = (0..<8).map { EventScene.time($0) } + [1.0]
        let ranges: [Double] = (0..<8).map { Self.range($0) } + [21.5]
        let meanT = times.reduce(0, +) / 9
        let meanR = ranges.reduce(0, +) / 9
        var covariance = 0.0, variance = 0.0
        for (t, r) in zip(times, ranges) {
            covariance += (t - meanT) * (r - meanR)
            variance += (t - meanT) * (t - meanT)
        }
        let slope = covariance / variance
        #expect(abs((lead.closing?.speed ?? .nan) + slope) <= 1e-9)
        #expect(detector.lostHistories.isEmpty)
    }

    @Test func aNewTrackFarFromTheHistorysRangeStartsItsOwn() throws {
        // Defaults: track 1 holds at 30 m for 8 frames (no closing, so its history predicts 30 m)
        // and is lost. A new track at 25.5 m is within the continuity gate (25 % of the range) but
        // 4.5 m from the prediction, more than 3 σ(25.5 m) = 3 × 0.85 m: it takes the corridor
        // history and starts its range history afresh. At 28.5 m (1.5 m off, 3 σ = 3.04 m) it
        // carries the nine ranges on.
        for (range, samples) in [(25.5, 1), (28.5, 9)] {
            var detector = try SafetyEventDetector(configuration: SafetyEventConfiguration())
            for k in 0..<8 { _ = Self.step(&detector, k, [EventScene.vehicle(1, range: 30)]) }
            _ = Self.step(&detector, 8, [])
            let lead = try #require(Self.step(&detector, 9, [EventScene.vehicle(2, range: range)]).lead)
            #expect(lead.track == 2 && detector.histories[2]?.samples.count == samples, "at \(range) m")
            #expect(detector.lateral[2] != nil && detector.lostHistories.isEmpty, "at \(range) m")
        }
    }

    @Test func aNewTrackTakesTheHistoryOfATrackCoastedBesideIt() throws {
        // Frame 8: the detector sees the lead at 22 m where the tracker coasts track 1 at 25 m
        // (its prediction) and starts track 2: the history of track 1 (30 … 23 m, predicting 22 m)
        // moves to track 2, whose closing speed is then the line through all nine ranges, exactly
        // 10 m/s, and track 1 starts afresh, with no sample from its coasted frame.
        var detector = try SafetyEventDetector(configuration: EventScene.exactRanges)
        for k in 0..<8 { _ = Self.step(&detector, k, [EventScene.vehicle(1, range: Self.range(k))]) }
        let assessment = Self.step(&detector, 8, [Self.coasting(EventScene.vehicle(1, range: 25)), EventScene.vehicle(2, range: Self.range(8))])
        let lead = try #require(assessment.lead)
        #expect(lead.track == 2 && abs((lead.closing?.speed ?? .nan) - 10) <= 1e-9)
        #expect(detector.histories[2]?.samples.count == 9 && detector.histories[1]?.samples.isEmpty == true)
    }

    @Test func aBoxAtTheGridsFarEdgeGivesNoRange() throws {
        // A car (4 m long) whose centre stays at 39.5 m, within the 1 m margin of the grid's far
        // edge at 40 m, while the vehicle closes in: none of its ranges (33.8 m) enters the history,
        // and its closing speed is unknown. From frame 5 it moves in at 10 m/s (centre 38.5 m
        // and nearer): its history holds those frames alone, and the line through them is exact.
        var configuration = EventScene.exactRanges
        configuration.farEdgeMarginMetres = 1
        var detector = try SafetyEventDetector(configuration: configuration)
        let ranges = Array(repeating: 33.8, count: 5) + (0..<6).map { 32.8 - Double($0) }
        var lead: LeadMeasurement?
        for (k, range) in ranges.enumerated() {
            lead = Self.step(&detector, k, [EventScene.vehicle(1, range: range)]).lead
            if k < 5 { #expect(lead?.closing == nil && detector.histories[1]?.samples.isEmpty == true) }
        }
        #expect(detector.histories[1]?.samples.count == 6 && abs((lead?.closing?.speed ?? .nan) - 10) <= 1e-9)
    }

    @Test func aNewTrackElsewhereStartsAfresh() throws {
        for (range, y, lost) in [(28.0, 0.0, 1), (20.0, 1.5, 1)] {
            // 28 m is 8 m beyond the prediction (gate: the larger of 2 m and 25 % of 28 m, 7 m);
            // 1.5 m to the side is beyond the 1 m lateral gate.
            var detector = try SafetyEventDetector(configuration: EventScene.exactRanges)
            for k in 0..<8 { _ = Self.step(&detector, k, [EventScene.vehicle(1, range: Self.range(k))]) }
            _ = Self.step(&detector, 8, [])
            _ = Self.step(&detector, 9, [])
            let lead = try #require(Self.step(&detector, 10, [EventScene.vehicle(2, range: range, y: y)]).lead)
            #expect(lead.closing == nil && detector.histories[2]?.samples.count == 1)
            #expect(detector.lostHistories.count == lost)
        }
    }

    @Test func aLostHistoryExpiresAfterTheContinuityTime() throws {
        var detector = try SafetyEventDetector(configuration: EventScene.exactRanges)
        for k in 0..<8 { _ = Self.step(&detector, k, [EventScene.vehicle(1, range: Self.range(k))]) }
        // Last measured at 0.7 s: kept at 1.7 s; at 1.8 s, 1.1 s later, gone even where it would fit.
        for k in 8..<18 { _ = Self.step(&detector, k, []) }
        #expect(detector.lostHistories.count == 1)
        let lead = try #require(Self.step(&detector, 18, [EventScene.vehicle(2, range: Self.range(18))]).lead)
        #expect(lead.closing == nil && detector.lostHistories.isEmpty)
    }

    @Test func aTrackBackUnderItsOwnIdKeepsItsHistory() throws {
        var detector = try SafetyEventDetector(configuration: EventScene.exactRanges)
        for k in 0..<5 { _ = Self.step(&detector, k, [EventScene.vehicle(1, range: Self.range(k))]) }
        _ = Self.step(&detector, 5, [])
        // Back 8 m off its prediction, beyond the gate: the tracker says it is the same vehicle.
        let lead = try #require(Self.step(&detector, 6, [EventScene.vehicle(1, range: Self.range(6) + 8)]).lead)
        #expect(detector.histories[1]?.samples.count == 6 && lead.closing != nil)
    }

    @Test func noContinuityWhenSwitchedOff() throws {
        var configuration = EventScene.exactRanges
        configuration.continuitySeconds = 0
        var detector = try SafetyEventDetector(configuration: configuration)
        for k in 0..<8 { _ = Self.step(&detector, k, [EventScene.vehicle(1, range: Self.range(k))]) }
        let lead = try #require(Self.step(&detector, 8, [EventScene.vehicle(2, range: Self.range(8))]).lead)
        #expect(lead.closing == nil && detector.lostHistories.isEmpty)
    }
}
