import Foundation
import PeripheryCore

/// Mount pitch and yaw, radians, as recovered from where straight-ahead travel appears in the image.
package struct MountAngles: Sendable, Hashable {
    /// Nose-up pitch, radians.
    package var pitch: Double
    /// Leftward yaw, radians.
    package var yaw: Double

    /// Creates angles from pitch and yaw in radians.
    package init(pitch: Double, yaw: Double) {
        self.pitch = pitch
        self.yaw = yaw
    }

    /// Inverts `sourceVanishingPoint((1, 0, 0))`: the mount pitch and yaw that put the vanishing
    /// point of straight travel (the focus of expansion) at `focusOfExpansion`.
    ///
    /// The pixel becomes a sensor-frame ray; the known roll is undone about the forward axis, and
    /// the levelled ray `(cos p cos y, −sin y, −sin p cos y)` gives pitch and yaw.
    ///
    /// - Parameters:
    ///   - focusOfExpansion: source-image pixel of the vanishing point of vehicle +x.
    ///   - intrinsics: the source camera (skew is ignored, as in the reference).
    ///   - roll: the mount roll, radians.
    package init(focusOfExpansion foe: SIMD2<Double>, intrinsics k: CameraIntrinsics, roll: Double) {
        var ray = SIMD3((foe.x - k.cx) / k.fx, (foe.y - k.cy) / k.fy, 1)
        ray /= (ray * ray).sum().squareRoot()
        let s = CoordinateFrames.sensorToImageAxes.transposed * ray
        let level = SIMD3(
            s.x,
            cos(roll) * s.y - sin(roll) * s.z,
            sin(roll) * s.y + cos(roll) * s.z)
        pitch = atan2(-level.z, level.x)
        yaw = asin(min(max(-level.y, -1), 1))
    }
}
