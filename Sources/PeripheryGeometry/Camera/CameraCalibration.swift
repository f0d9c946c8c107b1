import PeripheryCore

/// Everything derived from a camera setup that the detector needs: the focal-matched crop, the
/// network and feature-plane intrinsics, the extrinsic and the grid → feature projection.
public struct CameraCalibration: Sendable, Hashable {
    /// The camera and mount this calibration was built from.
    public let setup: CameraSetup
    /// The source-image crop and letterbox.
    public let crop: FocalMatchedCrop
    /// K of the 512 × 256 network input.
    public let networkIntrinsics: Matrix3
    /// K of the 128 × 64 feature plane (network K with its first two rows divided by the stride).
    public let featureIntrinsics: Matrix3
    /// `sensor_T_vehicle`.
    public let sensorFromVehicle: RigidTransform
    /// The 3×4 map from homogeneous grid metres to homogeneous feature-plane pixels,
    /// `K_feat · S · (sensor_T_vehicle · GRID_TO_VEHICLE)[0:3, :]`.
    public let projection: Matrix3x4

    /// Builds the calibration of a camera setup.
    public init(_ setup: CameraSetup, targetFocal: Double = Safety40.trainedFocal) {
        self.setup = setup
        crop = FocalMatchedCrop(intrinsics: setup.intrinsics, targetFocal: targetFocal)
        networkIntrinsics = CameraCalibration.adjustedIntrinsics(setup.intrinsics.matrix, crop: crop)
        var feature = networkIntrinsics
        let inverseStride = 1 / Double(Safety40.featureStride)
        feature.row0 *= inverseStride
        feature.row1 *= inverseStride
        featureIntrinsics = feature
        sensorFromVehicle = setup.pose.sensorFromVehicle
        let sensorFromGrid = (sensorFromVehicle * CoordinateFrames.gridToVehicle).matrix
        projection = (featureIntrinsics * CoordinateFrames.sensorToImageAxes) * sensorFromGrid
    }

    /// Creates the calibration of intrinsics and a pose.
    public init(intrinsics: CameraIntrinsics, pose: MountPose, targetFocal: Double = Safety40.trainedFocal) {
        self.init(CameraSetup(intrinsics: intrinsics, pose: pose), targetFocal: targetFocal)
    }

    /// Moves K into the network input: shift by the crop origin, scale the first two rows by the
    /// resize, shift by the letterbox offset.
    static func adjustedIntrinsics(_ k: Matrix3, crop: FocalMatchedCrop) -> Matrix3 {
        var m = k
        m[0, 2] -= Double(crop.x)
        m[1, 2] -= Double(crop.y)
        m.row0 *= crop.resize
        m.row1 *= crop.resize
        m[0, 2] += Double(crop.offsetX)
        m[1, 2] += Double(crop.offsetY)
        return m
    }
}
