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
          --calibration C.json  the drive's camera and starting mount (default DRIVE/\(FrameInput.calibrationFileName))
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
        // The drive and its calibration found as `run` finds them.
        var options = FrameInput.Options()
        if let given = args.value("calibration") { options.calibration = .file(given) }
        let input = try FrameInput(path, options: options)
        guard input.kind == .drive else { throw CLIError("\(input.name): calibrate needs a drive directory, not \(input.kind)") }
        let drive = try DriveDirectory(path: path)
        for row in drive.skipped { printError("warning: \(row)") }
        let calibration = try DriveMountCalibration(drive: drive, setup: input.setup, gyroBias: !args.flag("no-gyro-bias"))
        if drive.gravityRoll.unrecoverable { printError("warning: the mount is rolled beyond 25°; roll is not recoverable") }
        let maxFrames = Int(try args.number("max-frames", default: Double(drive.frames.count), in: 1...1e9))
        let progress = ProgressLine(total: min(maxFrames, drive.frames.count))
        let report = try calibration.run(maxFrames: maxFrames, progress: progress.update)
        progress.finish()
        if let setup = calibration.estimatedSetup(applyYaw: args.flag("apply-yaw")) {
            let out = args.value("out") ?? path + "/calibration-estimated.json"
            try OutputFile.write(CalibrationFile.encode(setup), to: out)
            printError("wrote \(out)")
        } else {
            let window = calibration.calibrator.window
            printError("not converged (\(window.samples) of \(window.profile.samplesToApply) pairs): no calibration written")
        }
        if args.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(text(report))
        }
        return 0
    }

    /// The report as lines for a person.
    static func text(_ r: MountCalibrationReport) -> String {
        func angle(_ v: Double?) -> String { v.map { String(format: "%+.3f°", $0) } ?? "—" }
        var lines = [
            "pitch \(angle(r.pitchDegrees))  yaw \(angle(r.yawDegrees))  roll \(angle(r.rollDegrees))",
            String(
                format: "σ pitch %.3f°  samples %d  accept rate %.2f  pitch without de-rotation %@  %@", r.sigmaPitchDegrees,
                r.samples, r.acceptRate, angle(r.pitchWithoutDerotationDegrees), r.converged ? "converged" : "not converged"),
        ]
        if let yaw = r.yawFromCourseDegrees {
            lines.append(String(format: "yaw from GPS course vs heading %+.3f° (%d fixes)", yaw, r.courseFixes))
        }
        if let ms = r.msPerPair { lines.append(String(format: "%.1f ms per frame pair (flow, de-rotation, RANSAC)", ms)) }
        return lines.joined(separator: "\n")
    }
}
