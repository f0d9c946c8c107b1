import PeripheryCore

@testable import PeripheryEvents

/// Synthetic confirmed tracks and ego steps at 10 frames/s, straight ahead unless told otherwise.
enum EventScene {
    static let egoFront = 3.7
    static let length = 4.0

    /// Frame `k`'s time: k/10 s, the nearest double to it.
    static func time(_ k: Int) -> Double { Double(k) / 10 }

    /// A car whose box (4.0 × 1.8 m, heading along x) has `range` from the bumper at 3.7 m, at
    /// lateral position `y`.
    static func vehicle(_ id: Int, range: Double, y: Double = 0) -> TrackedVehicle {
        TrackedVehicle(
            id: id, box: VehicleBox(x: range + egoFront + length / 2, y: y, z: 0.8, length: length, width: 1.8, height: 1.5, yaw: 0),
            modelYaw: 0, headingSource: .model, label: 0, score: 0.9, hits: 10, observed: true, ageSeconds: 1, state: .moving,
            velocity: nil, trail: [])
    }

    /// The ego's step over one frame at `speed` (m/s) and `yawRate` (rad/s).
    static func ego(speed: Double, yawRate: Double = 0) -> EgoDelta {
        EgoDelta(dx: speed * 0.1, dy: 0, dyaw: yawRate * 0.1, dt: 0.1)
    }

    /// The defaults for exact ranges, as the hand-worked tests were written: no floor of range noise
    /// under the fits' standard errors, a closing speed from three samples on whatever its
    /// significance, an acceleration at two standard errors, the warning at 3.0 s after three
    /// confirming frames, and every range in the history, even at the grid's far edge. The
    /// defaults' noise rules have tests of their own (`ClosingKinematicsTests`, `RangeContinuityTests`).
    static var exactRanges: SafetyEventConfiguration {
        var configuration = SafetyEventConfiguration()
        configuration.rangeNoiseMetres = 0
        configuration.rangeNoiseGrowth = 0
        configuration.speedSignificance = 0
        configuration.minimumSpeedSpanSeconds = 0
        configuration.accelerationSignificance = 2
        configuration.forwardCollision.timeToCollisionSeconds = 3
        configuration.forwardCollision.confirmationFrames = 3
        configuration.farEdgeMarginMetres = 0
        // Without a noise model no range is near enough to hand a range history on by σ(R).
        configuration.continuityRangeSigmas = 0
        return configuration
    }

    /// A configuration whose closing speed is the three-sample slope `(R[k−2] − R[k]) / 0.2 s` and
    /// never has an acceleration, so that event tests can dictate each frame's time to collision.
    static var direct: SafetyEventConfiguration {
        var configuration = exactRanges
        configuration.kinematicsWindowSeconds = 0.2
        configuration.accelerationMinimumSpanSeconds = 0.2
        configuration.accelerationOnsetMinimumSeconds = 0
        return configuration
    }

    /// Runs one lead (track 1) through `ranges`, a frame each from frame `first`, at `speed`.
    static func run(
        _ detector: inout SafetyEventDetector, ranges: [Double], first: Int = 0, speed: Double? = 20
    ) -> [SafetyAssessment] {
        ranges.enumerated().map { i, range in
            detector.update(timestamp: time(first + i), ego: speed.map { ego(speed: $0) }, tracks: [vehicle(1, range: range)])
        }
    }

    /// The three-sample time to collision of `ranges` at index `k`, written out for the tests:
    /// `R[k] / ((R[k−2] − R[k]) / 0.2)`.
    static func directTimeToCollision(_ ranges: [Double], _ k: Int) -> Double {
        ranges[k] / ((ranges[k - 2] - ranges[k]) / 0.2)
    }

    /// The reports of one type, in frame order, with their frame index.
    static func reports(_ assessments: [SafetyAssessment], _ type: SafetyEventType) -> [(frame: Int, report: SafetyEventReport)] {
        assessments.enumerated().flatMap { k, a in a.reports.filter { $0.type == type }.map { (k, $0) } }
    }
}
