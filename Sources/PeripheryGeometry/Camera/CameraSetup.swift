/// What a user states about a camera: its intrinsics and how it is mounted.
///
/// This is the content of a calibration file, and the input from which `CameraCalibration`
/// derives everything else.
public struct CameraSetup: Sendable, Hashable {
    /// The source camera.
    public var intrinsics: CameraIntrinsics
    /// The mount pose.
    public var pose: MountPose

    /// Creates a setup from intrinsics and a pose.
    public init(intrinsics: CameraIntrinsics, pose: MountPose) {
        self.intrinsics = intrinsics
        self.pose = pose
    }
}
