@testable import PeripheryCore
@testable import PeripheryGeometry

/// The golden calibration: comma K (fx = fy = 910, cx = 582, cy = 437, 1164 × 874), pitch −3.659°,
/// height 1.2 m, 1.65 m forward.
func goldenCalibration() throws -> CameraCalibration {
    CameraCalibration(intrinsics: try CameraIntrinsics(fx: 910, fy: 910, cx: 582, cy: 437, width: 1164, height: 874), pose: .fallback)
}
