import Dispatch
import PeripheryCore
import PeripheryEvents
import PeripheryGeometry

/// One camera frame and what is known about it when it arrives.
public struct PerceptionFrame: Sendable {
    /// The picture.
    public var pixels: FramePixels
    /// Capture time, seconds (any monotonic clock).
    public var timestamp: Double
    /// The camera, for this frame's pixel size.
    public var intrinsics: CameraIntrinsics
    /// The mount.
    public var pose: MountPose
    /// Ego motion since the previous frame, if known.
    public var ego: EgoDelta?
    /// Speed (m/s) and gyro readings since the previous frame, for the mount calibrator
    /// (`PerceptionEngine.mountCalibrator`); frames without them are gated out of it.
    public var motion: MotionSample?

    /// Creates a frame.
    public init(
        pixels: FramePixels, timestamp: Double, intrinsics: CameraIntrinsics, pose: MountPose, ego: EgoDelta? = nil,
        motion: MotionSample? = nil
    ) {
        self.pixels = pixels
        self.timestamp = timestamp
        self.intrinsics = intrinsics
        self.pose = pose
        self.ego = ego
        self.motion = motion
    }
}

/// Milliseconds per stage of one `PerceptionEngine.process` call.
public struct PerceptionTimings: Sendable, Hashable {
    /// Calibration and LUT rebuild (0 when the rebuild policy keeps the old ones).
    public var calibrate: Double
    /// Crop, resize, letterbox and normalisation.
    public var preprocess: Double
    /// Network and decode: the detector's stages and the call around them.
    public var inference: Double
    /// The detector's stages within `inference`.
    public var detector: DetectorTimings
    /// Tracker step and the safety events after it.
    public var track: Double

    /// Sum of all stages.
    public var total: Double { calibrate + preprocess + inference + track }
}

/// What one frame produced.
public struct PerceptionResult: Sendable {
    /// Detections of this frame, vehicle frame, descending score.
    public var detections: [Detection]
    /// Confirmed tracks after this frame.
    public var tracks: [TrackedVehicle]
    /// The calibration used: crop, achieved focal, pose.
    public var calibration: CameraCalibration
    /// Whether the calibration and LUT were rebuilt for this frame.
    public var rebuilt: Bool
    /// Whether the tracker was reset before this frame (reference reset rules).
    public var trackerReset: Bool
    /// The frame's safety output: the in-path lead with its time to collision and headway, and a
    /// report for each safety event that starts, stays on or ends at this frame
    /// (`docs/guides/events.md`).
    public var safety: SafetyAssessment
    /// Per-stage timings.
    public var timings: PerceptionTimings
}

/// Why a frame cannot be processed.
public enum PerceptionError: Error, Equatable, CustomStringConvertible {
    /// The frame's pixel size differs from the size its intrinsics describe.
    case frameSizeMismatch(pixels: PixelSize, intrinsics: PixelSize)

    public var description: String {
        switch self {
        case .frameSizeMismatch(let pixels, let intrinsics): "frame is \(pixels) but its intrinsics describe \(intrinsics)"
        }
    }
}

/// The whole per-frame pipeline: calibrate → crop → preprocess → detect → decode → track → safety
/// events.
///
/// Calibration and ProjectionLUT are rebuilt only when `RebuildPolicy` says so. The tracker is
/// reset, and fed `EgoDelta(dt: 0)`, when the reference resets it (`docs/reference/tracker.md#86-ego-motion-for-the-tracker`): no previous
/// frame, no or invalid ego motion, a frame interval ≤ 0 or > 1 s, or an ego `dt` more than 20 ms
/// off the interval. A frame with a non-finite timestamp resets the tracker and reports no tracks.
/// A `SafetyEventDetector` follows the tracker, fed the frame's timestamp, its ego motion and the
/// confirmed tracks, and restarts with it (`docs/guides/events.md`).
/// One engine per thread; it reuses all its buffers across frames. Engines built from one
/// `Safety40Weights` share it read-only and run in parallel with the results of each alone
/// (`ConcurrencyTests`); OpenBLAS's thread count is process-wide, and every engine sets it to 1.
public final class PerceptionEngine {
    /// Decode operating point; the reference runs live with the plausibility filter on.
    public var settings: DecodeSettings
    private let detector: Detector
    private let preprocessor: Preprocessor
    private var replay: TrackerReplay
    private var events = SafetyEventDetector()
    private var current: (calibration: CameraCalibration, lut: ProjectionLUT)?

    /// Estimates the mount pitch from the frames while driving (`MountCalibrator`), when set.
    ///
    /// Every frame with `motion` is fed to it; once its window has converged, its median pitch
    /// replaces the frames' own pitch (provenance "estimated" outranks fallback, gravity and
    /// manual values, `PoseProvenance`), and the calibration and LUT follow through
    /// `RebuildPolicy` — a change under 0.03° rebuilds nothing. Yaw is reported by the calibrator
    /// but never applied here. Frames of other intrinsics than the calibrator's are not fed.
    public var mountCalibrator: MountCalibrator?

    /// Whether the camera's pitch follows the body's, frame by frame, from the gyro and gravity of
    /// each frame's `motion` (`BodyPitchFilter`, built at the first frame with motion for that
    /// frame's mount). Off by default, as in the reference, whose LUT moves only with the mount.
    /// The body pitch is added to the frame's (or the mount calibrator's) pitch, and the
    /// calibration and LUT follow through `RebuildPolicy`.
    public var followsBodyPitch = false {
        didSet { bodyPitch = nil }
    }
    private var bodyPitch: BodyPitchFilter?

    /// Builds an engine.
    ///
    /// `int8Kernel` forces the INT8 convolutions' instruction set (`nil`, the default: the CPU's
    /// fastest; `Detector.init`).
    ///
    /// - Throws: `DetectorSetupError` if OpenBLAS cannot be loaded, the weights or the CPU
    ///   cannot run `precision` (`.auto`: the file's own), or the CPU or this build lacks `int8Kernel`.
    public init(
        weights: Safety40Weights, threads: Int? = nil,
        settings: DecodeSettings = DecodeSettings(rejectImplausible: true),
        tracker configuration: TrackerConfiguration = TrackerConfiguration(), precision: InferencePrecision = .auto,
        int8Kernel: Int8ISA? = nil
    ) throws(DetectorSetupError) {
        detector = try Detector(weights: weights, threads: threads, precision: precision, int8Kernel: int8Kernel)
        // The resize runs between two network passes, on as many threads as the network.
        preprocessor = Preprocessor(pool: detector.workerPool)
        self.settings = settings
        replay = TrackerReplay(configuration: configuration)
    }

    /// Worker threads per layer.
    public var threads: Int { detector.threads }

    /// The BLAS the detector runs on.
    package var blas: BLASInfo { detector.blas }

    /// The precision the network runs in.
    public var precision: InferencePrecision { detector.precision }

    /// The convolution kernels in use (`Detector.kernel`).
    public var kernel: ConvolutionKernel { detector.kernel }

    /// Tracker counters so far.
    public var counters: TrackerCounters { replay.tracker.counters }

    /// The rules of the safety events; the defaults until `configureEvents(_:)` replaces them.
    public var eventConfiguration: SafetyEventConfiguration { events.configuration }

    /// Replaces the rules of the safety events. The events start afresh: those on are dropped
    /// without an end, and the finished ones are forgotten.
    ///
    /// - Throws: `SafetyEventConfigurationError` naming a field out of its range; the rules in use
    ///   are then kept.
    public func configureEvents(_ configuration: SafetyEventConfiguration) throws(SafetyEventConfigurationError) {
        events = try SafetyEventDetector(configuration: configuration)
    }

    /// Ends the safety events still on, at the last frame's time; the end of a run. Returns their
    /// `end` reports, for the outputs to write.
    public func finishEvents() -> [SafetyEventReport] {
        events.finish()
    }

    /// The safety events of the frames so far (since the engine was built or reset): counts, rates
    /// per `durationSeconds` (by default the time the frames spanned) and the worst figures. Call
    /// `finishEvents()` first to count the events still on.
    public func eventSummary(durationSeconds: Double? = nil) -> SafetyEventSummary {
        events.summary(durationSeconds: durationSeconds)
    }

    /// Forgets all tracks, the previous frame, the calibration built for it and the safety events.
    public func reset() {
        replay.reset()
        events.reset()
        bodyPitch = nil
        // The calibration too, so that a reset engine gives what a fresh one gives (`RebuildPolicy`
        // would keep a nearly equal old calibration).
        current = nil
    }

    /// Processes one frame.
    ///
    /// - Throws: `PerceptionError` if the frame does not match its intrinsics.
    public func process(_ frame: PerceptionFrame) throws(PerceptionError) -> PerceptionResult {
        let k = frame.intrinsics
        guard frame.pixels.width == k.width, frame.pixels.height == k.height else {
            throw .frameSizeMismatch(pixels: frame.pixels.size, intrinsics: k.size)
        }
        var timings = PerceptionTimings(
            calibrate: 0, preprocess: 0, inference: 0, detector: DetectorTimings(backbone: 0, gather: 0, head: 0, decode: 0), track: 0)
        var mark = DispatchTime.now().uptimeNanoseconds
        func lap() -> Double {
            let now = DispatchTime.now().uptimeNanoseconds
            defer { mark = now }
            return Double(now - mark) / 1e6
        }

        var pose = frame.pose
        if let calibrator = mountCalibrator {
            if let motion = frame.motion, calibrator.intrinsics == k {
                let pixels = frame.pixels
                _ = calibrator.add(
                    grey: GreyImage(
                        bytes: pixels.bytes, width: pixels.width, height: pixels.height, rowStride: pixels.rowStride,
                        bytesPerPixel: pixels.format.bytesPerPixel, channels: pixels.format.channelOffsets,
                        outputWidth: calibrator.workingWidth),
                    t: frame.timestamp, speed: motion.speed, gyro: motion.gyro)
            }
            if calibrator.window.isConverged, let pitch = calibrator.window.pitch { pose.pitch = pitch }
        }
        if followsBodyPitch, let motion = frame.motion {
            if bodyPitch == nil { bodyPitch = BodyPitchFilter(mount: frame.pose) }
            bodyPitch?.add(motion)
        }
        pose.pitch += bodyPitch?.bodyPitch ?? 0
        let setup = CameraSetup(intrinsics: k, pose: pose)
        var rebuilt = false
        if current.map({ RebuildPolicy.needsRebuild(old: $0.calibration.setup, new: setup) }) ?? true {
            let calibration = CameraCalibration(setup)
            current = (calibration, ProjectionLUT(calibration: calibration))
            rebuilt = true
        }
        // Both set just above when missing.
        guard let (calibration, lut) = current else { preconditionFailure("calibration missing after rebuild") }
        timings.calibrate = lap()

        let image = preprocessor.process(frame.pixels, crop: calibration.crop)
        timings.preprocess = lap()

        var detections: [Detection] = []
        do {
            timings.detector = try detector.detect(image: image, lut: lut, settings: settings, into: &detections)
        } catch {
            // The preprocessor writes the contract's [3, 256, 512] and the LUT has 6560 voxels.
            preconditionFailure("detector rejected the engine's own buffers: \(error)")
        }
        timings.inference = lap()

        let (tracks, reset) = replay.step(TrackerInput(t: frame.timestamp, ego: frame.ego, detections: detections))
        let safety = events.update(timestamp: frame.timestamp, ego: frame.ego, tracks: tracks, trackerReset: reset)
        timings.track = lap()
        return PerceptionResult(
            detections: detections, tracks: tracks, calibration: calibration, rebuilt: rebuilt, trackerReset: reset, safety: safety,
            timings: timings)
    }
}
