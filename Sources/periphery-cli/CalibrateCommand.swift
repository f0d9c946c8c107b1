import Dispatch
import Foundation
import Periphery

/// `periphery calibrate`: mount pitch and yaw from a drive's focus of expansion.
enum CalibrateCommand: Command {
    static let name = "calibrate"
    static let summary = "Estimate the mount pitch and yaw of a drive from optical flow and gyro (focus of expansion)."
    static let help = """
        USAGE: periphery calibrate DRIVE [--calibration C.json] [--out C.json] [--max-frames N] [--apply-yaw]
                                         [--no-gyro-bias] [--json]

        Runs the focus-of-expansion estimator over a drive directory (frames with frames.csv,
        motion.csv and location.csv in the reference layout): every third frame on a 448 px grey
        image, gated at 8 m/s and 1.5°/s, de-rotated with the gyro less its bias (the drive's mean
        rate about the horizontal axes, and about the vertical less the GPS course's turn), into a
        400-pair window. Roll
        comes from gravity (motion.csv) when present. Prints pitch, yaw, roll, robust σ, samples,
        accept rate and the pitch without de-rotation, and writes the calibration with the
        estimated pitch (and yaw with --apply-yaw) once the window has converged (200 pairs).

        OPTIONS:
          --calibration C.json  the drive's camera and starting mount (default DRIVE/calibration.json)
          --out C.json          where to write the updated calibration (default DRIVE/calibration-estimated.json)
          --max-frames N        stop after N frames
          --apply-yaw           also write the estimated yaw
          --no-gyro-bias        de-rotate with the raw gyro (no bias estimate)
          --json                print one JSON object
          --help                show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["calibration", "out", "max-frames"], flags: ["json", "apply-yaw", "no-gyro-bias"])
        guard args.positional.count == 1 else { throw CLIError("give one DRIVE directory") }
        let path = args.positional[0]
        let drive = try DriveDirectory(path: path)
        for row in drive.skipped { printError("warning: \(row)") }
        let own = path + "/calibration.json"
        let calibrationPath = args.value("calibration") ?? (FileManager.default.fileExists(atPath: own) ? own : nil)
        let setup = try calibrationPath.map(CalibrationFile.load(path:))
        guard let intrinsics = setup?.intrinsics ?? drive.frames.first?.intrinsics else {
            throw CLIError("\(path): no intrinsics in frames.csv and no calibration file")
        }
        var pose = setup?.pose ?? .fallback
        var gravity = GravityPose()
        for sample in drive.gravity { gravity.add(gravity: sample.g) }
        if gravity.rollUnrecoverable { printError("warning: the mount is rolled beyond 25°; roll is not recoverable") }
        if let roll = gravity.roll { pose.roll = roll }
        let calibrator = MountCalibrator(intrinsics: intrinsics, roll: pose.roll)
        if !args.flag("no-gyro-bias") { calibrator.gyroBias = drive.gyroBias }
        calibrator.cameraAheadOfAxle = pose.forwardOfOrigin
        let maxFrames = Int(try args.number("max-frames", default: Double(drive.frames.count), in: 1...1e9))
        let progress = ProgressLine(total: min(maxFrames, drive.frames.count))
        var pairs = 0, pairTime = 0.0
        for (index, frame) in drive.frames.prefix(maxFrames).enumerated() {
            let image = try ImageFile.read(path: frame.path)
            guard image.width == intrinsics.width, image.height == intrinsics.height else {
                throw CLIError("\(frame.path): \(image.width)×\(image.height), the camera is \(intrinsics.width)×\(intrinsics.height)")
            }
            let start = DispatchTime.now().uptimeNanoseconds
            let outcome = calibrator.add(
                frame: image, t: frame.timestamp, speed: drive.speed(at: frame.timestamp),
                gyro: Array(drive.gyro(from: frame.timestamp - 1, to: frame.timestamp)))
            switch outcome {
            case .accepted, .rejected:
                pairs += 1
                pairTime += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            case .skipped, .gated: break
            }
            progress.update(index + 1)
        }
        progress.finish()
        let window = calibrator.window
        let degrees = 180 / Double.pi
        if window.isConverged, let pitch = window.pitch {
            pose.pitch = pitch
            if args.flag("apply-yaw"), let yaw = window.yaw { pose.yaw = yaw }
            let out = args.value("out") ?? path + "/calibration-estimated.json"
            try OutputFile.write(CalibrationFile.encode(CameraSetup(intrinsics: intrinsics, pose: pose)), to: out)
            printError("wrote \(out)")
        } else {
            printError("not converged (\(window.samples) of \(window.profile.samplesToApply) pairs): no calibration written")
        }
        func value(_ v: Double?) -> Any { v.map { $0 * degrees } ?? NSNull() }
        let courseYaw = CourseYaw.estimate(drive.courseYawFixes)
        let report: [String: Any] = [
            "pitch_deg": value(window.pitch), "yaw_deg": value(window.yaw), "roll_deg": pose.roll * degrees,
            "sigma_pitch_deg": window.pitchSigma * degrees, "samples": window.samples, "accept_rate": window.acceptRate,
            "pitch_without_derotation_deg": value(window.pitchWithoutDerotation), "converged": window.isConverged,
            "ms_per_pair": pairs > 0 ? pairTime / Double(pairs) : NSNull(),
            "gyro_bias_rad_s": [calibrator.gyroBias.x, calibrator.gyroBias.y, calibrator.gyroBias.z],
            "yaw_from_course_deg": value(courseYaw?.yaw), "course_fixes": courseYaw?.fixes ?? 0,
        ]
        if args.flag("json") {
            let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        } else {
            func text(_ v: Double?) -> String { v.map { String(format: "%+.3f°", $0 * degrees) } ?? "—" }
            print("pitch \(text(window.pitch))  yaw \(text(window.yaw))  roll \(String(format: "%+.3f°", pose.roll * degrees))")
            print(String(format: "σ pitch %.3f°  samples %d  accept rate %.2f  pitch without de-rotation %@  %@",
                         window.pitchSigma * degrees, window.samples, window.acceptRate, text(window.pitchWithoutDerotation),
                         window.isConverged ? "converged" : "not converged"))
            if let courseYaw { print(String(format: "yaw from GPS course vs heading %+.3f° (%d fixes)", courseYaw.yaw * degrees, courseYaw.fixes)) }
            if pairs > 0 { print(String(format: "%.1f ms per frame pair (flow, de-rotation, RANSAC)", pairTime / Double(pairs))) }
        }
        return 0
    }
}
