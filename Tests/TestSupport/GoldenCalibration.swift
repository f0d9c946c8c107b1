import PeripheryGeometry

/// The comma EON camera of the goldens: fx = fy = 910, cx = 582, cy = 437, 1164 × 874.
package func commaIntrinsics() throws -> CameraIntrinsics {
    try CameraIntrinsics(fx: 910, fy: 910, cx: 582, cy: 437, width: 1164, height: 874)
}

/// The golden calibration (reference, `docs/reference/contract.md#44-network-intrinsics-and-projection`): comma K
/// (`commaIntrinsics()`) on the fallback mount, pitch −3.659°, height 1.2 m, 1.65 m forward.
package func goldenCalibration() throws -> CameraCalibration {
    CameraCalibration(intrinsics: try commaIntrinsics(), pose: .fallback)
}
