import Foundation
import PeripheryCore

/// The ego's recent path for `/ego/path`, integrated from the frames' ego motion. It must see every
/// frame, in order, even when only some are sent (a live viewer), so that every consumer draws
/// the same path.
public struct FoxgloveEgoPath: Sendable {
    /// Poses `(x, y, yaw)` in the frame of the first of them.
    private var poses: [SIMD3<Double>] = []
    private static let length = 300

    /// An empty path.
    public init() {}

    /// Moves on by one frame's ego motion (nil or invalid: the path starts again) and returns the
    /// path as poses `(x, y, yaw)` in the current vehicle frame, oldest first.
    public mutating func advance(_ ego: EgoDelta?) -> [SIMD3<Double>] {
        if let ego, ego.valid, let last = poses.last {
            let (c, s) = (cos(last.z), sin(last.z))
            poses.append(SIMD3(last.x + c * ego.dx - s * ego.dy, last.y + s * ego.dx + c * ego.dy, last.z + ego.dyaw))
            if poses.count > Self.length { poses.removeFirst(poses.count - Self.length) }
        } else {
            poses = [.zero]
        }
        let now = poses[poses.count - 1]
        let (c, s) = (cos(now.z), sin(now.z))
        return poses.map { p in
            let (dx, dy) = (p.x - now.x, p.y - now.y)
            return SIMD3(c * dx + s * dy, -s * dx + c * dy, p.z - now.z)
        }
    }
}
