import PeripheryCore
import PeripheryGeometry

/// The one wiring of `MountCalibrator` to a recorded drive (through `DriveMountCalibration`, which
/// `periphery calibrate` runs and `run --auto-pitch` hands to `PerceptionEngine.mountCalibrator`),
/// so that the two see the same roll, gyro bias, frames and readings and agree.
extension DriveDirectory {
    /// The mount roll the drive's gravity readings give (`GravityPose`), or nil without them; and
    /// whether the mount is rolled beyond what gravity can recover.
    public var gravityRoll: (roll: Double?, unrecoverable: Bool) {
        var gravity = GravityPose()
        for sample in self.gravity { gravity.add(gravity: sample.g) }
        return (gravity.roll, gravity.rollUnrecoverable)
    }

    /// A calibrator for this drive's frames: levelled with the roll from gravity when the drive has
    /// it (else `pose.roll`), de-rotating with the drive's gyro bias unless `gyroBias` is false, and
    /// correcting the yaw for the camera's `pose.forwardOfOrigin` ahead of the axle.
    public func mountCalibrator(intrinsics: CameraIntrinsics, pose: MountPose, gyroBias: Bool = true) -> MountCalibrator {
        let calibrator = MountCalibrator(intrinsics: intrinsics, roll: gravityRoll.roll ?? pose.roll)
        if gyroBias { calibrator.gyroBias = self.gyroBias }
        calibrator.cameraAheadOfAxle = pose.forwardOfOrigin
        return calibrator
    }

    /// What the calibrator and the body-pitch filter are fed with the frame at `t`: the speed then
    /// and the gyro and gravity readings of the second before it (both ignore readings they have
    /// already seen, so every reading counts once).
    func mountMotion(at t: Double) -> MotionSample {
        MotionSample(speed: speed(at: t), gyro: Array(gyro(from: t - 1, to: t)), gravity: gravity(from: t - 1, to: t))
    }

    /// Gravity readings with `from ≤ t ≤ to`.
    func gravity(from start: Double, to end: Double) -> [GravitySample] {
        var low = 0, high = gravity.count
        while low < high {
            let mid = (low + high) / 2
            if gravity[mid].t < start { low = mid + 1 } else { high = mid }
        }
        return gravity[low...].prefix { $0.t <= end }.map { GravitySample(t: $0.t, g: $0.g) }
    }
}
