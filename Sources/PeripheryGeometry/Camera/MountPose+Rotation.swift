import Foundation
import PeripheryCore

extension MountPose {
    /// The pose with vehicle → sensor rotation `rotation` and camera centre `centre` (vehicle frame):
    /// the inverse of `vehicleToSensorRotation` and `cameraCentre`, for datasets that give a camera
    /// as a matrix. Exact for |pitch| < 90°.
    public init(vehicleToSensor rotation: Matrix3, cameraCentre centre: SIMD3<Double>) {
        // Rᵀ = Rz(yaw) · Ry(−pitch) · Rx(roll): the Z-Y-X angles of the sensor → vehicle rotation.
        let m = rotation.transposed
        self.init(
            pitch: asin(min(max(m[2, 0], -1), 1)), roll: atan2(m[2, 1], m[2, 2]), yaw: atan2(m[1, 0], m[0, 0]),
            height: centre.z, forwardOfOrigin: centre.x, lateralOffset: centre.y)
    }
}
