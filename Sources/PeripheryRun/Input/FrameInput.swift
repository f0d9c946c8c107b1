import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// What a run reads, classified and with its calibration found: the one place where the rules for
/// opening an input live, so that `periphery run`, the C API's sources (and so Python's
/// `periphery.open`) and the fleet's input check open the same inputs the same way and fail with the
/// same `FrameInputError`.
///
/// Making one reads no frame: it classifies the input (a drive directory, a video file, a video
/// file played in real time, a camera, a stream URL, raw frames on standard input), checks that the
/// options suit it, finds and loads its calibration (the one given, or `calibrationFileName` in a
/// drive or beside a video file) and checks what can be checked without decoding. `open(for:stop:report:)`
/// then opens its `FrameSource`.
public struct FrameInput: Sendable {
    /// What an input is.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        /// A directory of PNG or JPEG frames in the reference drive layout.
        case drive
        /// A video file, read as fast as the engine goes.
        case video
        /// A video file played at its own rate under the live rules (`Options.realtime`).
        case realtimeVideo = "realtime-video"
        /// A V4L2 camera: `/dev/videoN`, or any character device under `/dev`.
        case camera
        /// A network stream URL (`LiveSourceKind.streamSchemes`).
        case stream
        /// Raw rgb24 frames on standard input.
        case raw

        /// The kind as messages name it ("a video file").
        public var description: String {
            switch self {
            case .drive: "a drive directory"
            case .video: "a video file"
            case .realtimeVideo: "a video file played in real time"
            case .camera: "a camera"
            case .stream: "a stream"
            case .raw: "a stream of raw frames"
            }
        }

        /// Whether frames come at their own pace, under the live rules.
        public var isLive: Bool { self == .realtimeVideo || self == .camera || self == .stream }
    }

    /// Where the calibration comes from.
    public enum CalibrationSource: Sendable {
        /// `calibrationFileName` in a drive, or beside a video file, when there is one.
        case alongside
        /// A calibration file.
        case file(String)
        /// A camera and mount given as values.
        case setup(CameraSetup)
    }

    /// How to open an input. The defaults open any input as it is.
    public struct Options: Sendable {
        /// The calibration of frames that carry none.
        public var calibration = CalibrationSource.alongside
        /// Play a video file at its own rate under the live rules.
        public var realtime = false
        /// Frames a second of a drive without `frames.csv`, and of raw frames (0.1 to 1000).
        public var fps = 10.0
        /// Of a video file: seconds to skip from its first frame.
        public var start = 0.0
        /// Of a video file: seconds of it to read; of a live source: wall-clock seconds to run
        /// (`Opened.wallClockLimit`). Nil: all of it.
        public var duration: Double?
        /// Of a video file: take every `every`-th frame.
        public var every = 1
        /// How to open a camera or stream, or a video file played in real time.
        public var live = LiveSourceOptions()
        /// Estimate the mount pitch from a drive's motion while running (`periphery run --auto-pitch`).
        public var autoPitch = false
        /// Follow the body's pitch frame by frame from the gyro and gravity of a drive's or a
        /// video's `motion.csv` (`periphery run --body-pitch`, `PerceptionEngine.followsBodyPitch`).
        public var bodyPitch = false

        /// The defaults.
        public init() {}
    }

    /// The name of the calibration file a drive or a video's folder may carry.
    public static let calibrationFileName = "calibration.json"

    /// The input as messages name it: its path, its URL without a password, or "standard input".
    public let name: String
    /// What it is.
    public let kind: Kind
    /// The camera and mount of frames that carry none (a drive's `frames.csv` may give each frame its
    /// own camera, so a drive may have none).
    public let setup: CameraSetup?
    /// The calibration file `setup` was read from, if it came from one.
    public let calibrationPath: String?
    /// The folder the input lives in, where its outputs go by default: the drive itself, a video
    /// file's folder; nil for a camera, a stream and raw frames.
    public let folder: String?
    /// The files read: a drive's frame pictures in order, or the video file; none for the others.
    public let files: [String]
    /// How it is opened.
    public let options: Options
    /// The path or URL to open.
    let location: String

    /// Classifies `input` (a drive directory, a video file, `/dev/videoN` or a stream URL) and finds
    /// its calibration. Reads directory listings and the calibration file, no frame.
    ///
    /// - Throws: `FrameInputError`: `.notFound`, `.unreadable`, `.noFrames`, `.optionMismatch`,
    ///   `.invalidOption`, `.calibration`, `.needsCalibration`.
    public init(_ input: String, options: Options = Options()) throws(FrameInputError) {
        let kind: Kind
        var files: [String] = [], folder: String?
        switch LiveSourceKind.of(input) {
        case .camera?: kind = .camera
        case .stream?: kind = .stream
        case .file?, nil:
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else { throw .notFound(path: input) }
            if isDirectory.boolValue {
                kind = .drive
                folder = input
            } else {
                kind = options.realtime ? .realtimeVideo : .video
                folder = URL(fileURLWithPath: input).deletingLastPathComponent().path
                files = [input]
            }
        }
        let name = kind == .stream ? LiveSourceKind.redacted(input) : input
        try Self.check(options, for: kind, name: name)
        if kind == .drive {
            do {
                files = try DriveDirectory.framePictures(in: input)
            } catch .noFrames {
                throw .noFrames(path: input)
            } catch {
                throw .unreadable(path: input, reason: "not a readable directory")
            }
        }
        try self.init(name: name, location: input, kind: kind, folder: folder, files: files, options: options)
    }

    /// Raw rgb24 frames of `size` on standard input, at `options.fps` frames a second.
    ///
    /// - Throws: `FrameInputError`: `.optionMismatch`, `.invalidOption`, `.calibration`,
    ///   `.needsCalibration`, `.sizeMismatch` when `size` is not the calibration's.
    public init(standardInput size: PixelSize, options: Options = Options()) throws(FrameInputError) {
        let name = "standard input"
        try Self.check(options, for: .raw, name: name)
        try self.init(name: name, location: name, kind: .raw, folder: nil, files: [], options: options)
        if let setup, setup.intrinsics.size != size {
            throw .sizeMismatch(input: name, frames: size, calibration: setup.intrinsics.size)
        }
    }

    private init(
        name: String, location: String, kind: Kind, folder: String?, files: [String], options: Options
    ) throws(FrameInputError) {
        (self.name, self.location, self.kind, self.folder, self.files, self.options) = (name, location, kind, folder, files, options)
        switch options.calibration {
        case .setup(let given):
            (setup, calibrationPath) = (given, nil)
        case .file(let path):
            do { setup = try CalibrationFile.load(path: path) } catch { throw .calibration(error) }
            calibrationPath = path
        case .alongside:
            // Only a drive and a video file have a folder of their own to carry one.
            let alongside = folder.map { $0 + "/" + Self.calibrationFileName }
            if let alongside, FileManager.default.fileExists(atPath: alongside) {
                do { setup = try CalibrationFile.load(path: alongside) } catch { throw .calibration(error) }
                calibrationPath = alongside
            } else {
                (setup, calibrationPath) = (nil, nil)
            }
            if setup == nil, kind != .drive { throw .needsCalibration(input: name, kind: kind, looked: alongside) }
        }
    }

    /// The options that do not suit `kind`, or are out of range, as the first error.
    private static func check(_ options: Options, for kind: Kind, name: String) throws(FrameInputError) {
        func mismatch(_ option: String, needs: String) -> FrameInputError {
            .optionMismatch(input: name, option: option, kind: kind, needs: needs)
        }
        guard options.fps.isFinite, (0.1...1000).contains(options.fps) else {
            throw .invalidOption(input: name, option: "fps", reason: "\(options.fps) is outside 0.1 ... 1000")
        }
        if options.realtime, kind == .drive { throw mismatch("realtime", needs: Kind.video.description) }
        if options.autoPitch, kind != .drive { throw mismatch("auto-pitch", needs: Kind.drive.description) }
        let live = options.live
        let cameraOptions = [("video-size", live.videoSize != nil), ("framerate", live.framerate != nil), ("input-format", live.inputFormat != nil)]
        if kind != .camera, let (option, _) = cameraOptions.first(where: \.1) { throw mismatch(option, needs: Kind.camera.description) }
        guard options.start.isFinite, options.start >= 0 else {
            throw .invalidOption(input: name, option: "start", reason: "\(options.start) is not a number of seconds ≥ 0")
        }
        guard options.every >= 1 else { throw .invalidOption(input: name, option: "every", reason: "\(options.every) is below 1") }
        if let duration = options.duration, !(duration > 0) {
            throw .invalidOption(input: name, option: "duration", reason: "\(duration) is not a number of seconds > 0")
        }
        if kind != .video, options.start != 0 || options.every != 1 {
            throw mismatch(options.start != 0 ? "start" : "every", needs: Kind.video.description)
        }
        if options.duration != nil, kind == .drive || kind == .raw {
            throw mismatch("duration", needs: "a video file or a live source")
        }
    }
}
