import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripheryInference
@testable import PeripheryRun
@testable import PeripherySynthetic

/// One short rendered drive end to end: recorded by the synthetic world with a known mount, read
/// back as a drive directory, its mount pitch estimated by the engine while it detects, and the
/// estimate applied to the calibration once converged.
@Suite struct DriveCalibrationEndToEndTests {
    @Test func engineEstimatesAndAppliesTheMountPitch() throws {
        let folder = try scratchFolder("drive-calibration")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let truth = MountPose(pitchDegrees: -2.4, rollDegrees: 0.8, yawDegrees: 1.1, height: 1.3, forwardOfOrigin: 1.6)
        let setup = CameraSetup(intrinsics: try CameraIntrinsics(fx: 380, fy: 380, cx: 224, cy: 126, width: 448, height: 252), pose: truth)
        var recorder = SyntheticDriveRecorder(dataset: SyntheticDataset(path: folder))
        // Seed 59 drives straight at 13.4 m/s for its first 8 s. Six seconds are too short to
        // estimate a gyro bias (GyroBias needs 20 s): a bias-free gyro.
        recorder.sensors.gyroBiasLimit = 0
        try recorder.record(SyntheticDrive(seed: 59, duration: 6), camera: setup, frames: 180, fps: 30)
        let drive = try DriveDirectory(path: folder)
        #expect(drive.skipped.isEmpty && drive.frames.count == 180 && !drive.courses.isEmpty)
        // The GPS course against the camera heading gives the mount yaw (six fixes at 1 Hz).
        let courseYaw = try #require(CourseYaw.estimate(drive.courseYawFixes))
        #expect(courseYaw.fixes == 6 && abs(courseYaw.yaw - truth.yaw) < 0.1 * .pi / 180, "\(courseYaw.yaw * 180 / .pi)°")

        let weights = try Safety40Weights(path: repositoryPath("Weights/safety40-random-init.safetensors"))
        let engine = try PerceptionEngine(weights: weights, threads: 2)
        let start = MountPose.fallback // pitch −3.659°: 1.26° off
        let profile = PitchWindow.Profile(
            minimumSpeed: 8, maximumYawRate: 1.5 * .pi / 180, window: 400, samplesToReport: 10, samplesToApply: 30,
            writesToPose: true)
        let calibrator = MountCalibrator(intrinsics: setup.intrinsics, roll: truth.roll, profile: profile)
        calibrator.cameraAheadOfAxle = truth.forwardOfOrigin
        engine.mountCalibrator = calibrator
        var last: PerceptionResult?
        var appliedAt: Int?
        for (index, frame) in drive.frames.enumerated() {
            let previous = index > 0 ? drive.frames[index - 1].timestamp : frame.timestamp - 1 / 30
            let result = try engine.process(
                PerceptionFrame(
                    pixels: try FramePixels(try ImageFile.read(path: frame.path)), timestamp: frame.timestamp,
                    intrinsics: setup.intrinsics, pose: start,
                    motion: MotionSample(speed: drive.speed(at: frame.timestamp), gyro: Array(drive.gyro(from: previous, to: frame.timestamp)))))
            if appliedAt == nil, result.calibration.setup.pose.pitch != start.pitch { appliedAt = index }
            last = result
        }
        let window = calibrator.window
        #expect(window.samples >= 30 && window.isConverged)
        let pitch = try #require(window.pitch), yaw = try #require(window.yaw)
        // 50-odd pairs: the median lands within a few tenths; the full 400-pair proof is in docs/results/calibration-accuracy.md.
        #expect(abs(pitch - truth.pitch) < 0.3 * .pi / 180, "pitch off by \((pitch - truth.pitch) * 180 / .pi)°")
        #expect(abs(yaw - truth.yaw) < 0.5 * .pi / 180, "yaw off by \((yaw - truth.yaw) * 180 / .pi)°")
        // Not before the window converged (30 pairs, every third frame), then applied.
        #expect((appliedAt ?? 0) >= 90)
        let applied = try #require(last).calibration.setup.pose
        #expect(abs(applied.pitch - pitch) <= RebuildPolicy.angleThreshold)
        #expect(applied.yaw == start.yaw, "the yaw is reported, never applied by the engine")
    }
}

/// `periphery calibrate` (`DriveMountCalibration.run`) and `run --auto-pitch` (`PerceptionSession` with the
/// engine's calibrator from another `DriveMountCalibration`) share one wiring: over the same drive
/// they feed the calibrator the same frames, roll, gyro bias and readings, so their windows agree
/// exactly.
@Suite struct MountCalibrationWiringTests {
    @Test func calibrateAndAutoPitchAgree() throws {
        let folder = try scratchFolder("calibration-wiring")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let truth = MountPose(pitchDegrees: -2.4, rollDegrees: 0.8, yawDegrees: 1.1, height: 1.3, forwardOfOrigin: 1.6)
        let setup = CameraSetup(intrinsics: try CameraIntrinsics(fx: 380, fy: 380, cx: 224, cy: 126, width: 448, height: 252), pose: truth)
        let recorder = SyntheticDriveRecorder(dataset: SyntheticDataset(path: folder + "/drive"))
        try recorder.record(SyntheticDrive(seed: 59, duration: 3), camera: setup, frames: 90, fps: 30)
        let drive = try DriveDirectory(path: folder + "/drive")
        let start = CameraSetup(intrinsics: setup.intrinsics, pose: .fallback)
        let gravityRoll = try #require(drive.gravityRoll.roll)
        #expect(abs(gravityRoll - truth.roll) < 0.05 * .pi / 180, "roll from gravity \(gravityRoll * 180 / .pi)°")

        let calibration = try DriveMountCalibration(drive: drive, setup: start)
        let report = try calibration.run()

        let weights = try Safety40Weights(path: repositoryPath("Weights/safety40-random-init.safetensors"))
        let engine = try PerceptionEngine(weights: weights, threads: 2)
        // The drive opened as `periphery run --auto-pitch` opens it.
        var options = FrameInput.Options()
        (options.calibration, options.autoPitch) = (.setup(start), true)
        var opened = try FrameInput(folder + "/drive", options: options).open(for: engine, stop: StopRequest(), report: { _ in })
        let sidecar = try ReplaySidecar(path: folder + "/replay.jsonl", checkpoint: "test", scoreThreshold: 0.5, rejectImplausible: true)
        let summary = try PerceptionSession(engine: engine, setup: start, outputs: [SidecarOutput(sidecar)]).run(&opened.source)
        #expect(summary.processed == 90 && summary.received == 90 && summary.ended == .endOfInput)

        let calibrate = calibration.calibrator, run = try #require(engine.mountCalibrator)
        #expect(calibrate.roll == gravityRoll && run.roll == gravityRoll)
        #expect(calibrate.gyroBias == run.gyroBias && calibrate.cameraAheadOfAxle == run.cameraAheadOfAxle)
        #expect(report.samples >= 20, "\(report.samples) pairs")
        #expect(run.window.samples == calibrate.window.samples && run.window.acceptRate == calibrate.window.acceptRate)
        #expect(run.window.pitch == calibrate.window.pitch && run.window.yaw == calibrate.window.yaw)
        #expect(run.window.pitchWithoutDerotation == calibrate.window.pitchWithoutDerotation)
    }
}
