import Foundation
import Testing

@testable import PeripheryCore

/// Behaviour of `VehicleTracker` on hand-built scenes: births and deaths, gating, overlap
/// suppression, motion states and the reported heading (reference `docs/reference/tracker.md#84-step-order`).
struct VehicleTrackerTests {
    /// A light vehicle box (label 0) with the fixture's default size.
    static func box(
        _ x: Double, _ y: Double, label: Int = 0, yaw: Double = 0, score: Float = 0.8,
        length: Double = 4.5, width: Double = 1.9
    ) -> Detection {
        Detection(
            score: score, label: label,
            box: VehicleBox(
                x: x, y: y, z: 0.5, length: length, width: width, height: 1.5,
                yaw: yaw), candidate: 0)
    }

    /// Steps of 0.125 s (exact in binary, so hold and freeze comparisons are exact).
    static let dt = 0.125
    static let still = EgoDelta(dt: dt)

    /// Runs `frames` steps of `scene(k)` with ego motion `ego`, at t = k·dt; returns the last output.
    @discardableResult
    static func run(
        _ tracker: inout VehicleTracker, frames: Range<Int>, ego: EgoDelta = still,
        _ scene: (Int) -> [Detection]
    ) -> [TrackedVehicle] {
        var out: [TrackedVehicle] = []
        for k in frames {
            out = tracker.step(detections: scene(k), ego: ego, t: Double(k) * dt)
        }
        return out
    }

    // MARK: Births and deaths

    @Test func tracksAreBornWithIdsFromOneAndConfirmedAfterThreeHits() {
        var tracker = VehicleTracker()
        #expect(tracker.step(detections: [Self.box(20, 0)], ego: Self.still, t: 0).isEmpty)
        #expect(tracker.counters == TrackerCounters(births: 1, idsIssued: 1))
        #expect(tracker.step(detections: [Self.box(20, 0)], ego: Self.still, t: 0.125).isEmpty)
        let out = tracker.step(detections: [Self.box(20, 0)], ego: Self.still, t: 0.25)
        #expect(out.map(\.id) == [1])
        #expect(out.first?.hits == 3)
        #expect(out.first?.observed == true)
        #expect(out.first?.ageSeconds == 0.25)
        #expect(tracker.counters == TrackerCounters(births: 1, matches: 2, idsIssued: 1))
    }

    @Test func youngTracksDieOnTheirFirstMiss() {
        var tracker = VehicleTracker()
        Self.run(&tracker, frames: 0..<5) { _ in [Self.box(20, 0)] } // 5 hits < 8
        #expect(tracker.tracks.count == 1)
        #expect(tracker.step(detections: [], ego: Self.still, t: 5 * Self.dt).isEmpty)
        #expect(tracker.tracks.isEmpty)
        Self.run(&tracker, frames: 6..<9) { _ in [Self.box(20, 0)] }
        #expect(tracker.tracks.map(\.id) == [2])
    }

    @Test func establishedTracksCoastForHoldSeconds() {
        var tracker = VehicleTracker()
        Self.run(&tracker, frames: 0..<8) { _ in [Self.box(20, 0)] } // 8 hits: may coast
        let lastSeen = 7 * Self.dt
        for k in 8...11 { // up to 0.5 s unseen
            let out = tracker.step(detections: [], ego: Self.still, t: Double(k) * Self.dt)
            #expect(out.map(\.id) == [1], "t − lastSeen = \(Double(k) * Self.dt - lastSeen)")
            #expect(out.first?.observed == false)
            #expect(out.first?.hits == 8)
        }
        #expect(tracker.step(detections: [], ego: Self.still, t: 12 * Self.dt).isEmpty) // 0.625 s
        #expect(tracker.tracks.isEmpty)
    }

    @Test func coastingTrackIsRecapturedWithAWiderGate() {
        var tracker = VehicleTracker()
        Self.run(&tracker, frames: 0..<10) { _ in [Self.box(20, 0)] }
        Self.run(&tracker, frames: 10..<12) { _ in [] } // two misses
        // The metric gate grows with the misses: (2 + 12·0.125)·3 = 10.5 m.
        #expect(tracker.gateMetres(dt: Self.dt, misses: 2) == 10.5)
        let out = tracker.step(detections: [Self.box(21, 0)], ego: Self.still, t: 12 * Self.dt)
        #expect(out.map(\.id) == [1])
        #expect(out.first?.observed == true)
    }

    // MARK: Gating

    @Test func gateIsLongerAlongTheBearingThanAcrossIt() {
        // At 20 m σr = 0.18 + 0.0123·20 = 0.426 and σl = 0.18: 1.5 m along the bearing is 3.5σ
        // (matched), 1.0 m across it is 5.6σ (a new track).
        var along = VehicleTracker()
        Self.run(&along, frames: 0..<1) { _ in [Self.box(20, 0)] }
        Self.run(&along, frames: 1..<2) { _ in [Self.box(21.5, 0)] }
        #expect(along.tracks.map(\.id) == [1])
        #expect(along.tracks.first?.hits == 2)

        var across = VehicleTracker()
        Self.run(&across, frames: 0..<1) { _ in [Self.box(20, 0)] }
        Self.run(&across, frames: 1..<2) { _ in [Self.box(20, 1.0)] }
        #expect(across.tracks.map(\.id) == [2])
        #expect(across.counters.matches == 0 && across.counters.births == 2)
    }

    @Test func gateWidensWithRange() {
        // The same 1.5 m radial jump is 6.2σ at 5 m (σr = 0.2415): not matched.
        var tracker = VehicleTracker()
        Self.run(&tracker, frames: 0..<1) { _ in [Self.box(5, 0)] }
        Self.run(&tracker, frames: 1..<2) { _ in [Self.box(6.5, 0)] }
        #expect(tracker.tracks.map(\.id) == [2])
    }

    @Test func normalizedDistanceSplitsTheOffsetByBearing() {
        let tracker = VehicleTracker()
        let track = VehicleTrack(id: 1, detection: Self.box(30, 40), t: 0) // range 50, bearing (0.6, 0.8)
        let sr = 0.18 + 0.0123 * 50, sl = 0.08 + 0.005 * 50
        // An offset along the bearing is radial, across it lateral.
        let radial = tracker.normalizedDistance(track, Self.box(30 + 0.6, 40 + 0.8), motion: 0)
        #expect(abs(radial - 1 / sr) < 1e-12)
        let lateral = tracker.normalizedDistance(track, Self.box(30 - 0.8, 40 + 0.6), motion: 0)
        #expect(abs(lateral - 1 / sl) < 1e-12)
        // Motion uncertainty widens radial fully, lateral by a quarter.
        let moving = tracker.normalizedDistance(track, Self.box(30 - 0.8, 40 + 0.6), motion: 2)
        #expect(abs(moving - 1 / hypot(sl, 0.5)) < 1e-12)
    }

    @Test func detectionsBeyondTheMetricGateAreNeverMatched() {
        // Without the range-aware gate the limit is the metric gate itself: 2 + 12·0.125 = 3.5 m.
        var config = TrackerConfiguration()
        config.rangeAwareGate = false
        var tracker = VehicleTracker(configuration: config)
        Self.run(&tracker, frames: 0..<1) { _ in [Self.box(30, 0)] }
        Self.run(&tracker, frames: 1..<2) { _ in [Self.box(33.4, 0)] }
        #expect(tracker.tracks.map(\.id) == [1])
        Self.run(&tracker, frames: 2..<3) { _ in [Self.box(36.95, 0)] }
        #expect(tracker.tracks.map(\.id) == [2])
    }

    // MARK: Overlap suppression

    @Test func fartherOverlappingDetectionOfTheSameFamilyIsDropped() {
        var tracker = VehicleTracker()
        // Boxes 4.5 m long, centres 4.5 m apart: they touch, which counts as overlap.
        let scene = [Self.box(24.5, 0, score: 0.9), Self.box(20, 0, score: 0.6), Self.box(22, 0, label: 2)]
        Self.run(&tracker, frames: 0..<1) { _ in scene }
        #expect(tracker.counters.detectionSuppressed == 1)
        // Survivors keep input order: the near car (id 1), then the two-wheeler (another family).
        #expect(tracker.tracks.map(\.box.x) == [20, 22])
        #expect(tracker.tracks.map(\.label) == [0, 2])
    }

    @Test func separatedBoxesAreKept() {
        var tracker = VehicleTracker()
        Self.run(&tracker, frames: 0..<1) { _ in [Self.box(24.51, 0), Self.box(20, 0), Self.box(20, 1.91)] }
        #expect(tracker.counters.detectionSuppressed == 0)
        #expect(tracker.tracks.count == 3)
    }

    @Test func largeVehiclesShareTheLightVehicleFamily() {
        #expect(OverlapSuppression.family(0) == OverlapSuppression.family(1))
        #expect(OverlapSuppression.family(2) != OverlapSuppression.family(0))
        #expect(OverlapSuppression.family(3) != OverlapSuppression.family(0))
        #expect(OverlapSuppression.family(3) != OverlapSuppression.family(2))
    }

    // MARK: Motion state

    @Test func stationaryTargetBecomesParkedOnTheSecondVote() throws {
        var tracker = VehicleTracker()
        // Five world samples give the first state velocity (one vote), the sixth makes it parked.
        var out = Self.run(&tracker, frames: 0..<5) { _ in [Self.box(15, 3, yaw: 0.5)] }
        #expect(out.first?.state == .unknown)
        #expect(tracker.tracks.first?.parkedVotes == 1)
        out = Self.run(&tracker, frames: 5..<6) { _ in [Self.box(15, 3, yaw: 0.5)] }
        let v = try #require(out.first)
        #expect(v.state == .parked)
        #expect(v.velocity == SIMD2(0, 0))
        #expect(v.headingSource == .model)
        #expect(v.modelYaw == 0.5)
        #expect(abs(v.box.yaw - (0.5 - 3.24 * Double.pi / 180)) < 1e-15)
    }

    @Test func parkedCarSeenFromAMovingEgoIsParked() throws {
        // Ego at 8 m/s straight ahead; the car stands still in the world, so it approaches in the ego frame.
        var tracker = VehicleTracker()
        let ego = EgoDelta(dx: 8 * Self.dt, dt: Self.dt)
        let out = Self.run(&tracker, frames: 0..<8, ego: ego) { k in [Self.box(30 - Double(k), -3)] }
        let v = try #require(out.first)
        #expect(v.id == 1 && v.hits == 8)
        #expect(v.state == .parked)
        #expect(v.velocity == SIMD2(0, 0))
    }

    @Test func leadVehicleAtEgoSpeedIsMovingWithMotionHeading() throws {
        // Constant ego-frame position while the ego drives 8 m/s: 8 m/s over the ground.
        var tracker = VehicleTracker()
        let ego = EgoDelta(dx: 8 * Self.dt, dt: Self.dt)
        let out = Self.run(&tracker, frames: 0..<8, ego: ego) { _ in [Self.box(20, 0, yaw: 0.3)] }
        let v = try #require(out.first)
        #expect(v.state == .moving)
        #expect(v.headingSource == .motion)
        #expect(abs(v.box.yaw) < 1e-12)
        #expect(abs((v.velocity?.x ?? 0) - 8) < 1e-9 && abs(v.velocity?.y ?? 1) < 1e-9)
    }

    @Test func slowMoverKeepsModelHeading() throws {
        // 3 m/s crossing: moving (above the parked threshold) but below 5 m/s, so the model yaw shows.
        var tracker = VehicleTracker()
        let out = Self.run(&tracker, frames: 0..<8) { k in [Self.box(12, -4 + 3 * Self.dt * Double(k), yaw: 1.5)] }
        let v = try #require(out.first)
        #expect(v.state == .moving)
        #expect(v.headingSource == .model)
        #expect(abs((v.velocity?.y ?? 0) - 3) < 1e-9)
    }

    @Test func outputVelocityIsSmoothed() throws {
        // 4 m/s forward for 8 frames, then 8 m/s: the least-squares velocity jumps, the output lags
        // by the factor 0.35 per observed frame.
        var tracker = VehicleTracker()
        var x = 15.0
        Self.run(&tracker, frames: 0..<8) { k in
            if k > 0 { x += 4 * Self.dt }
            return [Self.box(x, 0)]
        }
        #expect(abs((tracker.tracks.first?.outputWorldVelocity?.x ?? 0) - 4) < 1e-9)
        x += 8 * Self.dt
        let track = tracker.tracks[0]
        var fitted = track
        fitted.record(.init(t: 8 * Self.dt, x: x, y: 0))
        let raw = try #require(fitted.fittedWorldVelocity(observations: 5))
        let out = tracker.step(detections: [Self.box(x, 0)], ego: Self.still, t: 8 * Self.dt)
        let expected = 4 + 0.35 * (raw.x - 4)
        #expect(abs((out.first?.velocity?.x ?? 0) - expected) < 1e-9)
    }

    @Test func stateIsUnknownBeyondStateRange() throws {
        var tracker = VehicleTracker()
        let out = Self.run(&tracker, frames: 0..<10) { _ in [Self.box(45, 0)] }
        let v = try #require(out.first)
        #expect(v.state == .unknown)
        // The velocity is still estimated and reported.
        #expect(v.velocity != nil)
        #expect(tracker.tracks.first?.parkedVotes == 0)
    }

    @Test func stateFreezesWhileCoastingLong() {
        var tracker = VehicleTracker()
        Self.run(&tracker, frames: 0..<10) { _ in [Self.box(15, 0)] }
        Self.run(&tracker, frames: 10..<11) { _ in [] } // 0.125 s unseen: still relabelled, still parked
        #expect(tracker.tracks.first?.state == .parked)
        // Beyond 0.2 s unseen the state stays, even where the range rule would now say unknown.
        var far = tracker
        far.tracks[0].box.x = 60
        Self.run(&far, frames: 11..<12) { _ in [] } // 0.25 s unseen
        #expect(far.tracks.first?.state == .parked)
        // Within 0.2 s the same track is relabelled.
        var near = tracker
        near.tracks[0].box.x = 60
        near.tracks[0].lastSeenT = 10 * Self.dt
        Self.run(&near, frames: 11..<12) { _ in [] }
        #expect(near.tracks.first?.state == .unknown)
    }

    // MARK: Output details

    @Test func trailKeepsPointsOfTheLastTrailSeconds() {
        var tracker = VehicleTracker()
        let out = Self.run(&tracker, frames: 0..<20) { k in [Self.box(15 + 0.25 * Double(k), 2)] }
        let trail = out.first?.trail ?? []
        // 1.5 s at 0.125 s spacing: 13 samples, the last one at the current position.
        #expect(trail.count == 13)
        #expect(trail.first?.x == 7 * Self.dt)
        #expect(abs((trail.last?.y ?? 0) - (15 + 0.25 * 19)) < 1e-12 && abs((trail.last?.z ?? 0) - 2) < 1e-12)
    }

    @Test func wrapMapsIntoHalfOpenInterval() {
        #expect(VehicleTracker.wrap(Double.pi) == -Double.pi)
        #expect(abs(VehicleTracker.wrap(3 * Double.pi / 2) + Double.pi / 2) < 1e-15)
        #expect(abs(VehicleTracker.wrap(-5 * Double.pi / 2) + Double.pi / 2) < 1e-15)
        #expect(VehicleTracker.wrap(0.25) == 0.25)
    }

    @Test func robustShapePicksTheObservedShapeNearestTheMedians() {
        typealias S = VehicleTrack.Shape
        let shapes = [
            S(length: 4.5, width: 1.9, height: 1.5), S(length: 9, width: 2.5, height: 3),
            S(length: 4.4, width: 1.8, height: 1.6), S(length: 4.6, width: 1.85, height: 1.45),
        ]
        // Medians 4.55, 1.875, 1.55; the first shape is nearest in summed |log ratio|.
        #expect(VehicleTrack.robustShape(shapes) == shapes[0])
        // Equal distances (ln 2 either side of the median length 4): the earliest wins.
        let a = S(length: 2, width: 2, height: 1.5), b = S(length: 8, width: 2, height: 1.5)
        let far = S(length: 4, width: 20, height: 1.5)
        #expect(VehicleTrack.robustShape([a, b, far]) == a)
        #expect(VehicleTrack.robustShape([b, a, far]) == b)
    }

    @Test func shapeHistoryIsBounded() {
        var tracker = VehicleTracker()
        Self.run(&tracker, frames: 0..<300) { k in [Self.box(15, 0, length: 4.5 + 0.001 * Double(k % 7))] }
        #expect(tracker.tracks.first?.hits == 300)
        #expect(tracker.tracks.first?.shapes.count == VehicleTrack.shapeHistoryLimit)
        // World samples are bounded by time: baseline + trail + 0.5 s = 3 s.
        #expect((tracker.tracks.first?.world.count ?? 0) <= Int(3 / Self.dt) + 1)
    }

    @Test func resetStartsOver() {
        var tracker = VehicleTracker()
        Self.run(&tracker, frames: 0..<4) { _ in [Self.box(20, 0), Self.box(10, 5)] }
        #expect(tracker.counters.idsIssued == 2)
        tracker.reset()
        #expect(tracker.counters == TrackerCounters())
        #expect(tracker.tracks.isEmpty)
        Self.run(&tracker, frames: 0..<1) { _ in [Self.box(20, 0)] }
        #expect(tracker.tracks.map(\.id) == [1])
    }

    /// A raw detection drawn without a tracker: its box, class and score, observed once, just born.
    @Test func trackedVehicleFromADetection() {
        let detection = Self.box(12, -2, label: 1, yaw: 0.4, score: 0.75)
        let v = TrackedVehicle(detection: detection, id: 3)
        #expect(v.id == 3 && v.box == detection.box && v.modelYaw == 0.4 && v.headingSource == .model)
        #expect(v.label == 1 && v.score == 0.75 && v.hits == 1 && v.observed && v.ageSeconds == 0)
        #expect(v.state == .unknown && v.velocity == nil && v.trail.isEmpty)
    }
}
