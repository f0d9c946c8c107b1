import PeripheryCore

/// The phone's own axes (`docs/reference/contract.md#23-axes`), in which its gyro, accelerometer and gravity report:
/// +x the right edge, +y the top edge, +z out of the screen. For the rear camera, image right is
/// −y, image down is −x and the optical axis is −z.
package enum DeviceAxes {
    /// Image axes (right, down, optical) → device axes.
    static let fromImageAxes = Matrix3(rows: SIMD3(0, -1, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, -1))

    /// Vehicle-frame vectors → device axes for a camera mounted with `pose`.
    package static func fromVehicle(_ pose: MountPose) -> Matrix3 {
        fromImageAxes * CoordinateFrames.sensorToImageAxes * pose.vehicleToSensorRotation
    }
}
