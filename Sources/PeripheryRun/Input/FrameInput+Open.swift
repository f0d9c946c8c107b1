import PeripheryCore
import PeripheryGeometry
import PeripheryIO
import PeripheryInference

extension FrameInput {
    /// An opened input: its frame source and what a run needs to know about it.
    public struct Opened {
        /// The frames.
        public var source: any FrameSource
        /// The nominal frame rate, for a rendered video: a drive's or raw frames' `Options.fps`, a
        /// video file's own (10 when it does not say), 30 for a live source.
        public let fps: Double
        /// How many frames a video file should deliver, for progress reports; nil for the others (a
        /// drive's `source.count` is exact).
        public let expectedCount: Int?
        /// Wall-clock seconds a live source is to run (`Options.duration`); nil for the others.
        public let wallClockLimit: Double?
    }

    /// Opens the input's frame source.
    ///
    /// With `Options.autoPitch`, `engine` gets the drive's mount calibrator (the wiring of
    /// `periphery calibrate`: `DriveMountCalibration`); otherwise any calibrator it had is removed.
    ///
    /// - Parameters:
    ///   - engine: the engine the frames will go through.
    ///   - stop: ends a live source's `next()` once requested.
    ///   - report: hears what the user should be told: rows of a drive's or a video's motion tables
    ///     that were skipped (before this returns), a stream lost and back (later, from the capture thread).
    /// - Throws: `FrameInputError` (`.sizeMismatch` for a video file of another size than the
    ///   calibration, `.autoPitch`), `DriveError` and `VideoError` naming the file.
    public func open(for engine: PerceptionEngine, stop: StopRequest, report: @escaping @Sendable (String) -> Void) throws -> Opened {
        engine.mountCalibrator = nil
        engine.followsBodyPitch = options.bodyPitch
        switch kind {
        case .drive:
            let drive = try DriveDirectory(path: location, fps: options.fps)
            for row in drive.skipped { report("\(row)") }
            if options.autoPitch { engine.mountCalibrator = try mountCalibrator(of: drive) }
            return Opened(source: DriveFrameSource(drive: drive), fps: options.fps, expectedCount: nil, wallClockLimit: nil)
        case .raw:
            let size = try cameraSize()
            let source = RawFrameSource(width: size.width, height: size.height, fps: options.fps)
            return Opened(source: source, fps: options.fps, expectedCount: nil, wallClockLimit: nil)
        case .video:
            let size = try cameraSize()
            let source = try VideoFrameSource(path: location, start: options.start, duration: options.duration ?? .infinity, every: options.every)
            let frames = PixelSize(width: source.info.width, height: source.info.height)
            guard frames == size else { throw FrameInputError.sizeMismatch(input: name, frames: frames, calibration: size) }
            for row in source.motion?.skipped ?? [] { report("\(row)") }
            return Opened(source: source, fps: source.info.fps ?? 10, expectedCount: source.expectedCount, wallClockLimit: nil)
        case .realtimeVideo, .camera, .stream:
            let size = try cameraSize()
            let live: LiveSourceKind = kind == .camera ? .camera : kind == .stream ? .stream : .file
            let source = try LiveFrameSource(
                source: location, kind: live, options: options.live, width: size.width, height: size.height, stop: stop, report: report)
            for row in source.motion?.skipped ?? [] { report("\(row)") }
            return Opened(source: source, fps: 30, expectedCount: nil, wallClockLimit: options.duration)
        }
    }

    /// The calibration's frame size, which every input but a drive has (`init` made sure).
    private func cameraSize() throws(FrameInputError) -> PixelSize {
        guard let setup else { throw .needsCalibration(input: name, kind: kind, looked: nil) }
        return setup.intrinsics.size
    }

    /// The drive's mount calibrator, for `autoPitch`.
    private func mountCalibrator(of drive: DriveDirectory) throws(FrameInputError) -> MountCalibrator {
        guard !drive.gyro.isEmpty, !drive.speeds.isEmpty else { throw .autoPitch(input: name, missing: "motion.csv and location.csv") }
        do {
            return try DriveMountCalibration(drive: drive, setup: setup).calibrator
        } catch {
            throw .autoPitch(input: name, missing: "the camera: no intrinsics in frames.csv and no calibration")
        }
    }
}
