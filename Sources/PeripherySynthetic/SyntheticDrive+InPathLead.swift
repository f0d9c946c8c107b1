import Foundation
import PeripheryCore
import PeripheryGeometry

/// The drive's ground truth of the vehicle in the ego's path.
extension SyntheticDrive {
    /// The ego's front bumper ahead of its vehicle origin, metres, from which ranges are measured:
    /// inside the footprint that no traffic enters (x −3…5 m) and ahead of the camera (mounted
    /// 1.0–2.0 m ahead of the origin).
    public static let egoFrontOfOrigin = 3.7
    /// Half the width of the corridor along the ego's predicted path, metres: a lane.
    static let corridorHalfWidth = 1.8
    /// The farthest range at which a vehicle counts as in the path, metres.
    static let inPathReach = 60.0
    /// Step of the one-sided differences of the range, seconds: one-sided so that at the moment the
    /// lead starts braking the truth holds the braking, fine enough that a change of motion shows
    /// within 20 ms, coarse enough that rounding stays far below the thresholds that follow.
    static let differenceStep = 0.01
    /// Closing speeds and accelerations below these are the rounding of the differences, and count as 0.
    static let closingSpeedFloor = 1e-6, closingAccelerationFloor = 1e-4

    /// The in-path lead at `t`, or nil when no vehicle is in the path.
    ///
    /// Every vehicle of the traffic counts, seen by the camera or not. The predicted path is the arc
    /// from the ego's origin of curvature yaw rate ÷ speed (straight below 1 m/s); a vehicle is in it
    /// when its footprint centre lies within 1.8 m of the arc laterally (offset y − κx²/2) and its
    /// range is in (0, 60] m; the lead is the one of smallest range.
    public func inPathLead(at t: Double) -> InPathLeadTruth? {
        let ego = ego(at: t)
        let curvature = ego.speed < 1 ? 0 : ego.yawRate / ego.speed
        var lead: (index: Int, range: Double)?
        for index in movers.indices {
            let (range, centre) = reach(of: index, at: t, ego: ego)
            guard range > 0, range <= Self.inPathReach, abs(centre.y - curvature * centre.x * centre.x / 2) <= Self.corridorHalfWidth else { continue }
            if range < lead?.range ?? .infinity { lead = (index, range) }
        }
        guard let lead else { return nil }
        let h = Self.differenceStep
        let r1 = range(of: lead.index, at: t + h), r2 = range(of: lead.index, at: t + 2 * h)
        // Second-order forward difference of the speed, first-order of the acceleration (exact for
        // the piecewise constant accelerations of the scripts).
        var speed = (3 * lead.range - 4 * r1 + r2) / (2 * h)
        var acceleration = -(lead.range - 2 * r1 + r2) / (h * h)
        if abs(speed) < Self.closingSpeedFloor { speed = 0 }
        if abs(acceleration) < Self.closingAccelerationFloor { acceleration = 0 }
        return InPathLeadTruth(
            id: lead.index, range: lead.range, closingSpeed: speed, closingAcceleration: acceleration,
            timeToCollision: InPathLeadTruth.timeToCollision(range: lead.range, closingSpeed: speed, closingAcceleration: acceleration),
            headway: ego.speed < 1 ? nil : lead.range / ego.speed)
    }

    /// The range of traffic vehicle `index` at `t`.
    func range(of index: Int, at t: Double) -> Double { reach(of: index, at: t, ego: ego(at: t)).range }

    /// A vehicle's range and footprint centre in the vehicle frame of `ego` (the ego at `t`): the
    /// footprint's nearest corner along x is the centre less the half extents projected on x.
    func reach(of index: Int, at t: Double, ego: EgoState) -> (range: Double, centre: SIMD2<Double>) {
        let mover = movers[index]
        let (centre, yaw, _) = pose(of: mover, at: t, ego: ego)
        let halfDepth = abs(cos(yaw)) * mover.size.x / 2 + abs(sin(yaw)) * mover.size.y / 2
        return (centre.x - halfDepth - Self.egoFrontOfOrigin, centre)
    }
}
