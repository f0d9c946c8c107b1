import Dispatch
import Foundation
import PeripheryCore
import PeripheryGeometry

/// Mount pitch and yaw of a recorded drive from the focus of expansion of its frames: what
/// `periphery calibrate` runs (`docs/reference/calibration-from-motion.md`).
public struct DriveMountCalibration {
    /// The drive.
    public let drive: DriveDirectory
    /// The camera of the drive's frames.
    public let intrinsics: CameraIntrinsics
    /// The starting mount with its roll from gravity when the drive has gravity readings.
    public let pose: MountPose
    /// The calibrator, wired by `DriveDirectory.mountCalibrator(intrinsics:pose:gyroBias:)`.
    public let calibrator: MountCalibrator

    /// Prepares the calibration of `drive` from `setup` (default: the intrinsics of its
    /// `frames.csv` and the reference mount).
    ///
    /// - Throws: `DriveError.noCamera` when neither `setup` nor `frames.csv` gives the camera.
    public init(drive: DriveDirectory, setup: CameraSetup?, gyroBias: Bool = true) throws(DriveError) {
        guard let intrinsics = setup?.intrinsics ?? drive.frames.first?.intrinsics else {
            throw .noCamera(path: drive.path)
        }
        calibrator = drive.mountCalibrator(intrinsics: intrinsics, pose: setup?.pose ?? .fallback, gyroBias: gyroBias)
        var pose = setup?.pose ?? .fallback
        pose.roll = calibrator.roll
        self.drive = drive
        self.intrinsics = intrinsics
        self.pose = pose
    }

    /// Feeds the first `maxFrames` frames to the calibrator, calling `progress` with the number
    /// done after each, and reports the window.
    ///
    /// - Throws: `ImageError` for an unreadable frame, `DriveError.frameSize` for a frame of
    ///   another size than the camera.
    public func run(maxFrames: Int = .max, progress: (Int) -> Void = { _ in }) throws -> MountCalibrationReport {
        var pairs = 0, pairTime = 0.0
        for (index, frame) in drive.frames.prefix(maxFrames).enumerated() {
            let image = try ImageFile.read(path: frame.path)
            guard image.width == intrinsics.width, image.height == intrinsics.height else {
                throw DriveError.frameSize(
                    path: frame.path, size: image.size, camera: intrinsics.size, cameraFile: nil)
            }
            let start = DispatchTime.now().uptimeNanoseconds
            let motion = drive.mountMotion(at: frame.timestamp)
            switch calibrator.add(frame: image, t: frame.timestamp, speed: motion.speed, gyro: motion.gyro) {
            case .accepted, .rejected:
                pairs += 1
                pairTime += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            case .skipped, .gated: break
            }
            progress(index + 1)
        }
        return MountCalibrationReport(
            window: calibrator.window, roll: pose.roll, gyroBias: calibrator.gyroBias,
            courseYaw: CourseYaw.estimate(drive.courseYawFixes), msPerPair: pairs > 0 ? pairTime / Double(pairs) : nil)
    }

    /// The calibration with the estimated pitch (and yaw when `applyYaw`), or nil before the
    /// window has converged.
    public func estimatedSetup(applyYaw: Bool) -> CameraSetup? {
        let window = calibrator.window
        guard window.isConverged, let pitch = window.pitch else { return nil }
        var pose = pose
        pose.pitch = pitch
        if applyYaw, let yaw = window.yaw { pose.yaw = yaw }
        return CameraSetup(intrinsics: intrinsics, pose: pose)
    }
}
