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
        var source: any FrameSource
        var recorded: DriveDirectory?
        let outDirectory: String
        if let size = args.value("stdin-raw") {
            try args.expectNoPositional()
            guard let setup else { throw CLIError("--stdin-raw needs --calibration") }
            let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] == setup.intrinsics.width, parts[1] == setup.intrinsics.height else {
                throw CLIError("--stdin-raw \(size) must be WxH and match the calibration's \(setup.intrinsics.width)x\(setup.intrinsics.height)")
            }
            source = StdinFrameSource(width: parts[0], height: parts[1], fps: fps)
            outDirectory = args.value("out") ?? "."
        } else {
            guard args.positional.count == 1 else { throw CLIError("give one DRIVE directory, or --stdin-raw WxH") }
            let drive = try DriveDirectory(path: args.positional[0], fps: fps)
            for row in drive.skipped { printError("warning: \(row)") }
            source = DriveFrameSource(drive: drive)
            recorded = drive
            outDirectory = args.value("out") ?? args.positional[0]
        }
        try FileManager.default.createDirectory(atPath: outDirectory, withIntermediateDirectories: true)
        let render = args.flag("render")
        if render {
            try FileManager.default.createDirectory(atPath: outDirectory + "/render", withIntermediateDirectories: true)
        }

        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let untrained = weights.metadata["trained"] == "false"
        let engine = try PerceptionEngine(weights: weights, threads: try Defaults.threads(args), precision: try Defaults.precision(args))
        if args.flag("auto-pitch") {
            guard let drive = recorded, !drive.gyro.isEmpty, !drive.speeds.isEmpty else {
                throw CLIError("--auto-pitch needs a drive directory with motion.csv and location.csv")
            }
            guard let intrinsics = setup?.intrinsics ?? drive.frames.first?.intrinsics else {
                throw CLIError("--auto-pitch needs the camera: no intrinsics in frames.csv and no --calibration")
            }
            let pose = setup?.pose ?? .fallback
            let calibrator = MountCalibrator(intrinsics: intrinsics, roll: pose.roll)
            calibrator.gyroBias = drive.gyroBias
            calibrator.cameraAheadOfAxle = pose.forwardOfOrigin
            engine.mountCalibrator = calibrator
        }
        var sidecar = try ReplaySidecar(
            path: outDirectory + "/" + ReplaySidecar.fileName, checkpoint: weights.metadata["provenance"] ?? "unknown",
            scoreThreshold: engine.settings.scoreThreshold, rejectImplausible: engine.settings.rejectImplausible)

        let interactive = isatty(2) != 0
        let start = DispatchTime.now().uptimeNanoseconds
        var processed = 0, previous: Double?
        while processed < maxFrames, let frame = try source.next() {
            guard let intrinsics = frame.intrinsics ?? setup?.intrinsics else {
                throw CLIError("\(frame.name): no intrinsics in frames.csv and no --calibration")
            }
            let pose = setup?.pose ?? .fallback
            // Without recorded motion the ego is taken as stationary over the frame interval.
            let ego = frame.ego ?? previous.map { EgoDelta(dt: frame.timestamp - $0) }
            let pixels = try FramePixels(frame.image)
            let result: PerceptionResult
            do {
                result = try engine.process(PerceptionFrame(
                    pixels: pixels, timestamp: frame.timestamp, intrinsics: intrinsics, pose: pose, ego: ego, motion: frame.motion))
            } catch {
                throw CLIError("\(frame.name): \(error)")
            }
            try sidecar.append(pts: frame.timestamp, ego: ego ?? EgoDelta(dt: 0, valid: false), result: result)
            if render {
                let speed = ego.flatMap { $0.valid && $0.dt > 0 ? ($0.dx * $0.dx + $0.dy * $0.dy).squareRoot() / $0.dt : nil } ?? 0
                let picture = FrameRendering.composite(
                    frame: frame.image, calibration: result.calibration, vehicles: result.tracks, egoSpeed: speed,
                    untrained: untrained)
                try ImageFile.writePNG(picture, to: String(format: "%@/render/%06d.png", outDirectory, processed))
            }
            previous = frame.timestamp
            processed += 1
            if interactive {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let rate = Double(processed) / elapsed
                let eta = source.count.map { String(format: ", ETA %.0f s", Double(min($0, maxFrames) - processed) / rate) } ?? ""
                OutputFile.writeStandardError(String(format: "\rframe %d  %.1f frames/s%@   ", processed, rate, eta))
            }
        }
        try sidecar.finish()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if interactive { OutputFile.writeStandardError("\n") }
        let counters = engine.counters
        printError(String(
            format: "%d frames in %.1f s (%.2f frames/s)%@, %d tracks born; wrote %@/%@",
            processed, elapsed, Double(processed) / max(elapsed, 1e-9), render ? " with rendering" : "", counters.births,
            outDirectory, ReplaySidecar.fileName))
        if let calibrator = engine.mountCalibrator {
            let window = calibrator.window
            let pitch = window.pitch.map { String(format: "%+.3f°", $0 * 180 / .pi) } ?? "—"
            printError("auto pitch: \(pitch) from \(window.samples) pairs, " + (window.isConverged ? "converged and applied" : "not converged, not applied"))
        }
        if untrained { printError("note: untrained test weights - the tracks are not real vehicles") }
        return 0
    }
}

/// One frame for `run`.
struct SourceFrame {
    var name: String
    var image: RGBImage
    var timestamp: Double
    var intrinsics: CameraIntrinsics?
    var ego: EgoDelta?
    /// Speed and gyro readings since the previous frame, for the mount calibrator.
    var motion: (speed: Double?, gyro: [GyroSample])?
}

/// Where `run` gets its frames.
protocol FrameSource {
    /// Number of frames, when known in advance.
    var count: Int? { get }
    /// The next frame, or `nil` at the end.
    mutating func next() throws -> SourceFrame?
}

/// Frames of a drive directory, with ego motion from its CSVs when it has them.
struct DriveFrameSource: FrameSource {
    let drive: DriveDirectory
    var index = 0

    init(drive: DriveDirectory) { self.drive = drive }

    var count: Int? { drive.frames.count }

    mutating func next() throws -> SourceFrame? {
        guard index < drive.frames.count else { return nil }
        let entry = drive.frames[index]
        var ego: EgoDelta?
        var motion: (speed: Double?, gyro: [GyroSample])?
        if index > 0, !drive.yawRates.isEmpty || !drive.speeds.isEmpty {
            let previous = drive.frames[index - 1].timestamp
            ego = drive.egoDelta(from: previous, to: entry.timestamp)
            motion = (drive.speed(at: entry.timestamp), Array(drive.gyro(from: previous, to: entry.timestamp)))
        }
        index += 1
        return SourceFrame(
            name: entry.path, image: try ImageFile.read(path: entry.path), timestamp: entry.timestamp,
            intrinsics: entry.intrinsics, ego: ego, motion: motion)
    }
}

/// Raw rgb24 frames of a fixed size on standard input.
struct StdinFrameSource: FrameSource {
    let width: Int
    let height: Int
    let fps: Double
    var index = 0
    /// The last frame's bytes, read into again once its frame is released (no copy then): a fresh
    /// 6 MB array per 1080p frame cost its zero fill and page faults every frame.
    private var bytes: [UInt8] = []

    init(width: Int, height: Int, fps: Double) {
        self.width = width
        self.height = height
        self.fps = fps
    }

    var count: Int? { nil }

    mutating func next() throws -> SourceFrame? {
        let size = width * height * 3
        if bytes.count != size { bytes = [UInt8](repeating: 0, count: size) }
        // read(2), not FileHandle, whose read traps on an error such as a directory on stdin.
        let (filled, failure) = bytes.withUnsafeMutableBytes { buffer -> (filled: Int, error: Int32?) in
            guard let base = buffer.baseAddress else { return (0, nil) }
            return FileDescriptorIO.readFully(STDIN_FILENO, into: base, count: size)
        }
        if let failure { throw CLIError("standard input: \(String(cString: strerror(failure)))") }
        if filled == 0 { return nil }
        guard filled == size, let image = RGBImage(width: width, height: height, pixels: bytes) else {
            throw CLIError("standard input: frame \(index) ends after \(filled) of \(size) bytes")
        }
        defer { index += 1 }
        return SourceFrame(name: "stdin frame \(index)", image: image, timestamp: Double(index) / fps, intrinsics: nil, ego: nil)
    }
}
