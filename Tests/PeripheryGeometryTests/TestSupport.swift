import Foundation
import PeripheryTestSupport

@testable import PeripheryCore
@testable import PeripheryGeometry

/// Degrees to radians.
func rad(_ degrees: Double) -> Double { degrees * .pi / 180 }
/// Radians to degrees.
func deg(_ radians: Double) -> Double { radians * 180 / .pi }

/// Plain row-major 3×3 and 3×4 arithmetic on arrays, independent of the library's matrix types.
enum Naive {
    typealias M = [[Double]]

    static func mul(_ a: M, _ b: M) -> M {
        (0..<a.count).map { i in (0..<b[0].count).map { j in (0..<b.count).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    static func apply(_ a: M, _ v: [Double]) -> [Double] {
        a.map { row in zip(row, v).reduce(0) { $0 + $1.0 * $1.1 } }
    }

    static func rx(_ a: Double) -> M { [[1, 0, 0], [0, cos(a), -sin(a)], [0, sin(a), cos(a)]] }
    static func ry(_ p: Double) -> M { [[cos(p), 0, sin(p)], [0, 1, 0], [-sin(p), 0, cos(p)]] }
    static func rz(_ b: Double) -> M { [[cos(b), -sin(b), 0], [sin(b), cos(b), 0], [0, 0, 1]] }

    /// Reference §4.2: `R = Rx(−roll) · Ry(pitch) · Rz(−yaw)`.
    static func rotation(pitch: Double, roll: Double, yaw: Double) -> M {
        mul(mul(rx(-roll), ry(pitch)), rz(-yaw))
    }

    static let s: M = [[0, -1, 0], [0, 0, -1], [1, 0, 0]]
    static let gridToVehicle: M = [[0, 1, 0, 0.944], [-1, 0, 0, 0], [0, 0, 1, 1.840], [0, 0, 0, 1]]

    /// Reference §4.3 crop and letterbox, rounding half away from zero, for the feature intrinsics.
    static func featureK(fx: Double, fy: Double, cx: Double, cy: Double, width: Int, height: Int) -> M {
        let scale = 565.6 / fx
        let cropW = min((512 / scale).rounded(.toNearestOrAwayFromZero), Double(width))
        let cropH = min((256 / scale).rounded(.toNearestOrAwayFromZero), Double(height))
        let x0 = min(max((cx - cropW / 2).rounded(.toNearestOrAwayFromZero), 0), Double(width) - cropW)
        let y0 = min(max((cy - cropH / 2).rounded(.toNearestOrAwayFromZero), 0), Double(height) - cropH)
        let resize = min(512 / cropW, 256 / cropH)
        let offX = Double((512 - Int((cropW * resize).rounded(.toNearestOrAwayFromZero))) / 2)
        let offY = Double((256 - Int((cropH * resize).rounded(.toNearestOrAwayFromZero))) / 2)
        return [
            [fx * resize / 4, 0, ((cx - x0) * resize + offX) / 4],
            [0, fy * resize / 4, ((cy - y0) * resize + offY) / 4],
            [0, 0, 1],
        ]
    }

    /// Reference §4.4: `P = K_feat · S · (sensor_T_vehicle · GRID_TO_VEHICLE)[0:3, :]`.
    static func projection(k: M, pose: MountPose) -> M {
        let r = rotation(pitch: pose.pitch, roll: pose.roll, yaw: pose.yaw)
        let c = [pose.forwardOfOrigin, pose.lateralOffset, pose.height]
        let t = apply(r, c).map { -$0 }
        let sensorT: M = [r[0] + [t[0]], r[1] + [t[1]], r[2] + [t[2]], [0, 0, 0, 1]]
        let top = Array(mul(sensorT, gridToVehicle).prefix(3))
        return mul(mul(k, s), top)
    }

    /// `(u, v, depth)` of a homogeneous image point.
    static func pixel(_ p: M, _ point: SIMD3<Double>) -> (u: Double, v: Double, depth: Double) {
        let h = apply(p, [point.x, point.y, point.z, 1])
        return (h[0] / h[2], h[1] / h[2], h[2])
    }
}

/// A random plausible camera: a 4:3 or 16:9 frame, focal 0.6–1.2 × width, principal point near the
/// centre; a pose within ±10° pitch, ±8° roll, ±8° yaw, 0.8–2.2 m high.
struct RandomCamera {
    var intrinsics: CameraIntrinsics
    var pose: MountPose

    static func make(_ rng: inout SeededRandom) throws -> RandomCamera {
        let sizes = [(1164, 874), (1920, 1080), (1280, 720), (1440, 1080), (640, 480), (4032, 3024)]
        let (w, h) = sizes[Int(rng.next() % UInt64(sizes.count))]
        let fx = Double(w) * rng.uniform(0.6, 1.2)
        let k = try CameraIntrinsics(
            fx: fx, fy: fx * rng.uniform(0.98, 1.02),
            cx: Double(w) * rng.uniform(0.45, 0.55), cy: Double(h) * rng.uniform(0.45, 0.55), width: w, height: h)
        let pose = MountPose(
            pitch: rad(rng.uniform(-10, 10)), roll: rad(rng.uniform(-8, 8)), yaw: rad(rng.uniform(-8, 8)),
            height: rng.uniform(0.8, 2.2), forwardOfOrigin: rng.uniform(0, 3), lateralOffset: rng.uniform(-0.5, 0.5))
        return RandomCamera(intrinsics: k, pose: pose)
    }
}
