import Foundation
import Periphery

/// `periphery run`: the whole pipeline over a recorded drive, a video file or raw video on stdin.
enum RunCommand: Command {
    static let name = "run"
    static let summary = "Run detection and tracking over a drive directory, a video file or raw frames on stdin."
    static let help = """
        USAGE: periphery run DRIVE|VIDEO [--calibration C.json] [--out DIR] [--render] [--render-video OUT.mp4]
                                         [--mcap OUT.mcap] [--max-frames N] [--fps F] [--auto-pitch]
                                         [--start S] [--duration S] [--every N] [--progress]
               periphery run --stdin-raw WxH --fps F --calibration C.json [--out DIR] [...]

        DRIVE is a directory of frames (PNG/JPEG, in name order) with optional frames.csv (per-frame pts
        and K), motion.csv and location.csv in the reference drive layout. VIDEO is a file FFmpeg decodes
        (MP4, MOV, MKV, AVI; H.264, H.265, MJPEG, VP9, AV1), timed by its own timestamps, with motion.csv
        and location.csv beside it when present. With --stdin-raw, raw rgb24 frames of W×H come from
        standard input. Without motion the ego is taken as stationary: tracks are kept, but their
        velocities include the ego's own.

        Writes OUT/replay-safety40-v1.jsonl (one line per frame), with --render OUT/render/NNNNNN.png
        composites (camera overlay | bird's-eye view), with --render-video the same as an H.264 MP4, with
        --mcap a Foxglove MCAP (docs/mcap.md). If the input fails part-way, everything before is written
        and finished, and the exit status is 3.

        OPTIONS:
          --calibration C.json   camera and mount (default: calibration.json in DRIVE or beside VIDEO;
                                 without one, K comes from frames.csv and the mount is the fallback)
          --out DIR              output directory (default: DRIVE or VIDEO's folder; . with --stdin-raw)
          --render               write a composite picture per frame
          --render-video OUT.mp4 write the composites as an H.264 video at the input's frame times
          --mcap OUT.mcap        write camera, boxes, tracks, camera pose and ego path for Foxglove
          --max-frames N         stop after N frames
          --start S, --duration S, --every N
                                 of a VIDEO: begin S seconds in, stop S seconds later, take every Nth frame
          --auto-pitch           estimate the mount pitch from the drive's motion while running (as
                                 `periphery calibrate`; needs motion.csv and location.csv)
          --fps F                frame rate for --stdin-raw, or for drives without frames.csv (default 10)
          --stdin-raw WxH        read raw rgb24 frames of this size from standard input
          --progress             show the progress line even when standard error is not a terminal
          --weights W            weights file (default: Weights/safety40-synthetic.safetensors)
          --threads T            worker threads (default: all cores)
        \(Defaults.precisionHelp)
          --help                 show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments,
            options: ["calibration", "out", "max-frames", "fps", "stdin-raw", "weights", "threads", "precision", "render-video", "mcap",
                      "start", "duration", "every"],
            flags: ["render", "auto-pitch", "progress"])
        let fps = try args.number("fps", default: 10, in: 0.1...1000)
        let input = args.positional.first
        var isDirectory: ObjCBool = false
        let isVideo = input.map { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue } ?? false
        let folder = input.map { isVideo ? URL(fileURLWithPath: $0).deletingLastPathComponent().path : $0 }
        // A drive, or the folder of a video, may carry its own calibration file.
        let calibrationPath = args.value("calibration")
            ?? folder.map { $0 + "/calibration.json" }.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        let setup = try calibrationPath.map(CalibrationFile.load(path:))
        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let engine = try PerceptionEngine(weights: weights, threads: try Defaults.threads(args), precision: try Defaults.precision(args))
        let session = RunSession(engine: engine, weights: weights, setup: setup, args: args)
        if let size = args.value("stdin-raw") {
            try args.expectNoPositional()
            guard let setup else { throw CLIError("--stdin-raw needs --calibration") }
            let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] == setup.intrinsics.width, parts[1] == setup.intrinsics.height else {
                throw CLIError("--stdin-raw \(size) must be WxH and match the calibration's \(setup.intrinsics.width)x\(setup.intrinsics.height)")
            }
            var source = RawFrameSource(width: parts[0], height: parts[1], fps: fps)
            return try session.run(&source, out: args.value("out") ?? ".", fps: fps)
        }
        guard args.positional.count == 1, let input, let folder else { throw CLIError("give one DRIVE directory or VIDEO file, or --stdin-raw WxH") }
        if isVideo {
            var source = try VideoFrameSource(
                path: input, start: try args.number("start", default: 0, in: 0...1e7),
                duration: try args.number("duration", default: .infinity, in: 1e-3 ... .infinity),
                every: Int(try args.number("every", default: 1, in: 1...1e6)))
            guard let setup else { throw CLIError("\(input): a video needs --calibration (or calibration.json beside it)") }
            guard source.info.width == setup.intrinsics.width, source.info.height == setup.intrinsics.height else {
                let (video, camera) = ("\(source.info.width)x\(source.info.height)", "\(setup.intrinsics.width)x\(setup.intrinsics.height)")
                throw VideoError.mismatch(path: input, reason: "frames are \(video), the calibration's \(camera)")
            }
            if args.flag("auto-pitch") { throw CLIError("--auto-pitch needs a drive directory") }
            return try session.run(&source, out: args.value("out") ?? folder, fps: source.info.fps ?? fps, expected: source.expectedCount)
        }
        let drive = try DriveDirectory(path: input, fps: fps)
        for row in drive.skipped { printError("warning: \(row)") }
        if args.flag("auto-pitch") {
            guard !drive.gyro.isEmpty, !drive.speeds.isEmpty else {
                throw CLIError("--auto-pitch needs a drive directory with motion.csv and location.csv")
            }
            // The wiring of `periphery calibrate`, so that the two agree.
            guard let calibration = try? DriveMountCalibration(drive: drive, setup: setup) else {
                throw CLIError("--auto-pitch needs the camera: no intrinsics in frames.csv and no --calibration")
            }
            engine.mountCalibrator = calibration.calibrator
        }
        var source = DriveFrameSource(drive: drive)
        return try session.run(&source, out: args.value("out") ?? drive.path, fps: fps)
    }
}
