import Dispatch
import Foundation
import Periphery

/// `periphery run`: the whole pipeline over a recorded drive or a raw video stream.
enum RunCommand: Command {
    static let name = "run"
    static let summary = "Run detection and tracking over a drive directory or raw frames on stdin; write the replay sidecar."
    static let help = """
        USAGE: periphery run DRIVE [--calibration C.json] [--out DIR] [--render] [--max-frames N] [--fps F] [--auto-pitch]
               periphery run --stdin-raw WxH --fps F --calibration C.json [--out DIR] [--render] [--max-frames N]

        DRIVE is a directory of frames (PNG/JPEG, in name order) with optional frames.csv (per-frame pts
        and K), motion.csv and location.csv in the reference drive layout. With --stdin-raw, raw rgb24
        frames of W×H are read from standard input, e.g.
          ffmpeg -i drive.mp4 -f rawvideo -pix_fmt rgb24 - | periphery run --stdin-raw 1920x1080 --fps 30 --calibration C.json
        Ego motion comes from motion.csv + location.csv when present (constant-twist arc); without them
        the ego is taken as stationary, so tracks are kept but their velocities include the ego's own.

        Writes OUT/replay-safety40-v1.jsonl (one line per frame: raw detections, tracks, ego, calibration,
        timings) and, with --render, OUT/render/NNNNNN.png composites (camera overlay | bird's-eye view).

        OPTIONS:
          --calibration C.json   camera and mount (default: DRIVE/calibration.json if present; without
                                 one, K comes from frames.csv and the mount is the reference fallback)
          --out DIR              output directory (default: DRIVE, or . with --stdin-raw)
          --render               write a composite picture per frame
          --max-frames N         stop after N frames
          --auto-pitch           estimate the mount pitch from the drive's motion while running
                                 (as `periphery calibrate`; needs motion.csv and location.csv) and
                                 detect with it once converged (200 pairs)
          --fps F                frame rate for --stdin-raw, or for drives without frames.csv (default 10)
          --stdin-raw WxH        read raw rgb24 frames of this size from standard input
          --weights W            weights file (default: Weights/safety40-synthetic.safetensors)
          --threads T            worker threads (default: all cores)
        \(Defaults.precisionHelp)
          --help                 show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, options: ["calibration", "out", "max-frames", "fps", "stdin-raw", "weights", "threads", "precision"],
            flags: ["render", "auto-pitch"])
        let fps = try args.number("fps", default: 10, in: 0.1...1000)
        let maxFrames = Int(try args.number("max-frames", default: Double(Int32.max), in: 1...Double(Int32.max)))
        // A drive may carry its own calibration file.
        let driveCalibration = args.positional.first.map { $0 + "/calibration.json" }
        let calibrationPath = args.value("calibration")
            ?? driveCalibration.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        let setup = try calibrationPath.map(CalibrationFile.load(path:))
        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let engine = try PerceptionEngine(weights: weights, threads: try Defaults.threads(args), precision: try Defaults.precision(args))
        if let size = args.value("stdin-raw") {
            try args.expectNoPositional()
            guard let setup else { throw CLIError("--stdin-raw needs --calibration") }
            let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] == setup.intrinsics.width, parts[1] == setup.intrinsics.height else {
                throw CLIError("--stdin-raw \(size) must be WxH and match the calibration's \(setup.intrinsics.width)x\(setup.intrinsics.height)")
            }
            var source = RawFrameSource(width: parts[0], height: parts[1], fps: fps)
            return try run(&source, engine: engine, weights: weights, setup: setup, out: args.value("out") ?? ".", args: args, maxFrames: maxFrames)
        }
        guard args.positional.count == 1 else { throw CLIError("give one DRIVE directory, or --stdin-raw WxH") }
        let drive = try DriveDirectory(path: args.positional[0], fps: fps)
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
        return try run(&source, engine: engine, weights: weights, setup: setup, out: args.value("out") ?? drive.path, args: args, maxFrames: maxFrames)
    }

    /// Runs the engine over `source` into OUT/replay-safety40-v1.jsonl, rendering when asked.
    static func run(
        _ source: inout some FrameSource, engine: PerceptionEngine, weights: Safety40Weights, setup: CameraSetup?, out: String,
        args: Arguments, maxFrames: Int
    ) throws -> Int32 {
        let render = args.flag("render")
        try FileManager.default.createDirectory(atPath: render ? out + "/render" : out, withIntermediateDirectories: true)
        let untrained = weights.metadata["trained"] == "false"
        var sidecar = try ReplaySidecar(
            path: out + "/" + ReplaySidecar.fileName, checkpoint: weights.metadata["provenance"] ?? "unknown",
            scoreThreshold: engine.settings.scoreThreshold, rejectImplausible: engine.settings.rejectImplausible)
        let progress = ProgressLine(total: source.count.map { min($0, maxFrames) })
        var index = 0
        let summary = try DriveRun(engine: engine, setup: setup).run(&source, into: &sidecar, maxFrames: maxFrames) { frame, result, ego in
            defer { index += 1 }
            if render {
                let picture = FrameRendering.composite(
                    frame: frame.image, calibration: result.calibration, vehicles: result.tracks, egoSpeed: ego?.speed ?? 0,
                    untrained: untrained)
                try ImageFile.writePNG(picture, to: String(format: "%@/render/%06d.png", out, index))
            }
            progress.advance()
        }
        progress.finish()
        printError(String(
            format: "%d frames in %.1f s (%.2f frames/s)%@, %d tracks born; wrote %@/%@",
            summary.frames, summary.seconds, Double(summary.frames) / max(summary.seconds, 1e-9), render ? " with rendering" : "",
            engine.counters.births, out, ReplaySidecar.fileName))
        if let window = engine.mountCalibrator?.window {
            let pitch = window.pitch.map { String(format: "%+.3f°", $0 * 180 / .pi) } ?? "—"
            printError("auto pitch: \(pitch) from \(window.samples) pairs, " + (window.isConverged ? "converged and applied" : "not converged, not applied"))
        }
        if untrained { printError("note: untrained test weights - the tracks are not real vehicles") }
        return 0
    }
}
