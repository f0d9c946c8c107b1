import Foundation

/// The ego vehicle's pose in the tracker's world frame, which is the ego frame at the last reset
/// (reference `Pose2D`, `docs/reference/tracker.md#83-internal-state`).
struct EgoPose: Sendable, Hashable {
    /// Position of the ego origin, metres.
    var x = 0.0
    var y = 0.0
    /// Heading of the ego x axis, radians.
    var yaw = 0.0

    /// Moves the pose by one ego step (`dx`, `dy` in the old ego frame).
    mutating func advance(_ ego: EgoDelta) {
        let c = cos(yaw), s = sin(yaw)
        x += c * ego.dx - s * ego.dy
        y += s * ego.dx + c * ego.dy
        yaw += ego.dyaw
    }

    /// An ego-frame point in the world frame: `pos + R(yaw)·e`.
    func toWorld(_ e: SIMD2<Double>) -> SIMD2<Double> {
        let c = cos(yaw), s = sin(yaw)
        return SIMD2(x + c * e.x - s * e.y, y + s * e.x + c * e.y)
    }

    /// A world-frame point in the ego frame: `R(−yaw)·(w − pos)`.
    func toEgo(_ w: SIMD2<Double>) -> SIMD2<Double> {
        rotateToEgo(SIMD2(w.x - x, w.y - y))
    }

    /// A world-frame vector (a velocity) in the ego frame: `R(−yaw)·v`.
    func rotateToEgo(_ v: SIMD2<Double>) -> SIMD2<Double> {
        let c = cos(-yaw), s = sin(-yaw)
        return SIMD2(c * v.x - s * v.y, s * v.x + c * v.y)
    }
}
