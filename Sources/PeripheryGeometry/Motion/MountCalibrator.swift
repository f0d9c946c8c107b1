import Foundation
import PeripheryCore

/// One gyro reading: time (s, the frames' clock) and rotation rate in device axes (rad/s).
public struct GyroSample: Sendable, Hashable {
    /// Time, seconds, on the frames' clock.
    public var t: Double
    public var rate: SIMD3<Double>

    /// Creates a reading.
    public init(t: Double, rate: SIMD3<Double>) {
        self.t = t
        self.rate = rate
    }
}

/// Estimates mount pitch and yaw while driving from the focus of expansion of frame pairs
/// (`docs/reference/calibration-from-motion.md#91-pitch-and-yaw-from-the-focus-of-expansion`): every third frame, on a grey working image 448 px wide,
/// gated on speed and yaw rate, de-rotated with the mean gyro rate over the pair, into a
/// `PitchWindow` of per-pair angles. It keeps the previous frame's working image: one calibrator
/// per drive and thread.
public final class MountCalibrator {
    /// What one frame did.
    public enum Outcome: Sendable, Hashable {
        /// Not a frame of the stride, or the first of a pair.
        case skipped
        /// Refused before the flow by a gate.
        case gated(Gate)
        /// Reached the estimator and gave nothing.
        case rejected(FocusOfExpansionFailure)
        /// Gave a pitch and yaw (radians) with this many inliers.
        case accepted(pitch: Double, yaw: Double, inliers: Int)
    }

    /// The gate that refused a frame before the flow.
    public enum Gate: Sendable, Hashable {
        /// Slower than the profile's minimum speed, or no speed known.
        case speed
        /// The pair's frames are not 0.01–0.5 s apart.
        case interval
        /// No gyro reading near the pair.
        case noGyro
        /// Turning faster than the profile's maximum yaw rate.
        case yawRate
    }

    /// Working-image width, pixels.
    public let workingWidth: Int
    /// Every `frameStride`-th frame is used.
    public let frameStride: Int
    /// The flow and FoE stages.
    package var flow = SparseOpticalFlow()
    package var estimator = FocusOfExpansion()
    /// The window of accepted pairs.
    public private(set) var window: PitchWindow
    /// The source camera and the mount roll used to level the FoE ray.
    public var intrinsics: CameraIntrinsics
    public var roll: Double
    /// Subtracted from every gyro reading before de-rotation, device axes, rad/s (`GyroBias`).
    public var gyroBias = SIMD3<Double>.zero
    /// How far the camera sits ahead of the point of the vehicle that does not slip sideways in a
    /// turn (the rear axle), metres; nil leaves the curve correction of the yaw out.
    ///
    /// On a curve at yaw rate ψ̇ and speed v the camera moves at `atan(ψ̇·L/v)` to the left of the
    /// vehicle's heading, and the pair's chord turns a further ψ̇·dt/2: the focus of expansion
    /// follows the travel, so each pair's yaw reads low by their sum (0.2° at 1.5°/s and 16 m/s),
    /// and it is added back.
    public var cameraAheadOfAxle: Double?

    private var frameCounter = 0
    private var previous: (t: Double, pyramid: GreyPyramid)?
    /// The latest gyro readings, in time order (the reference keeps 256).
    private var recentGyro: [GyroSample] = []

    /// A calibrator for frames of `intrinsics`, levelling with `roll`.
    public init(
        intrinsics: CameraIntrinsics, roll: Double, profile: PitchWindow.Profile = .driving,
        workingWidth: Int = 448, frameStride: Int = 3
    ) {
        self.intrinsics = intrinsics
        self.roll = roll
        self.workingWidth = workingWidth
        self.frameStride = frameStride
        window = PitchWindow(profile: profile)
    }

    /// Feeds one frame at time `t` with the vehicle's speed (m/s, nil if unknown) and the gyro
    /// readings since the previous frame (more may be given: readings not newer than those already
    /// seen are ignored). The calibrator keeps the latest 256; over a pair it averages those in
    /// `[previous, t]`, or uses the one nearest `t` when there are none.
    public func add(frame: RGBImage, t: Double, speed: Double?, gyro: [GyroSample]) -> Outcome {
        add(grey: GreyImage(frame, width: workingWidth), t: t, speed: speed, gyro: gyro)
    }

    /// Feeds one frame as `add(frame:t:speed:gyro:)` does, its grey working image made by `grey`
    /// (`workingWidth` wide) only when the frame is used.
    package func add(grey: @autoclosure () -> GreyImage, t: Double, speed: Double?, gyro: [GyroSample]) -> Outcome {
        defer { frameCounter += 1 }
        for sample in gyro
        where sample.t > (recentGyro.last?.t ?? -.infinity)
            && sample.rate.x.isFinite && sample.rate.y.isFinite && sample.rate.z.isFinite
        {
            recentGyro.append(sample)
        }
        if recentGyro.count > 256 { recentGyro.removeFirst(recentGyro.count - 256) }
        guard frameCounter % frameStride == 0 else { return .skipped }
        let profile = window.profile
        if profile.minimumSpeed >= 0 {
            guard let speed, speed >= profile.minimumSpeed else {
                previous = nil
                return .gated(.speed)
            }
        }
        let image = grey()
        precondition(image.width == workingWidth, "grey working image must be \(workingWidth) wide")
        let pyramid = GreyPyramid(image)
        defer { previous = (t, pyramid) }
        guard let (t0, first) = previous, first.levels[0].width == image.width, first.levels[0].height == image.height else {
            return .skipped
        }
        let dt = t - t0
        guard dt > 0.01, dt < 0.5 else { return .gated(.interval) }
        let inPair = recentGyro.filter { $0.t >= t0 && $0.t <= t }
        let rates = inPair.isEmpty ? recentGyro.min { abs($0.t - t) < abs($1.t - t) }.map { [$0.rate] } ?? [] : inPair.map(\.rate)
        guard !rates.isEmpty else { return .gated(.noGyro) }
        let omega = rates.reduce(SIMD3<Double>.zero, +) / Double(rates.count) - gyroBias
        // Device → camera (right, down, forward) axes.
        let camera = SIMD3(-omega.y, -omega.x, -omega.z)
        guard abs(camera.y) <= profile.maximumYawRate else { return .gated(.yawRate) }
        let scale = Double(workingWidth) / Double(intrinsics.width)
        let fx = intrinsics.fx * scale, fy = intrinsics.fy * scale, cx = intrinsics.cx * scale, cy = intrinsics.cy * scale
        let samples = flow.flow(from: first, to: pyramid)
        let derotated = FocusOfExpansion.derotated(samples, rotation: camera * dt, fx: fx, fy: fy, cx: cx, cy: cy)
        switch estimator.estimate(derotated, fx: fx, fy: fy, cx: cx, cy: cy) {
        case .failure(let failure):
            window.reject()
            return .rejected(failure)
        case .success(let estimate):
            var angles = angles(estimate.point, scale: scale)
            if let ahead = cameraAheadOfAxle, let speed, speed > 1 {
                // Yaw rate about vehicle up ≈ about camera up (−y): cos(mount pitch) ≥ 0.99 here.
                let yawRate = -camera.y
                angles.yaw += atan(yawRate * ahead / speed) + yawRate * dt / 2
            }
            // The diagnostic: the same pair without de-rotation (its pitch only).
            let raw = (try? estimator.estimate(samples, fx: fx, fy: fy, cx: cx, cy: cy).get()).map { self.angles($0.point, scale: scale).pitch }
            window.add(pitch: angles.pitch, yaw: angles.yaw, rawPitch: raw ?? angles.pitch, inliers: estimate.inliers)
            return .accepted(pitch: angles.pitch, yaw: angles.yaw, inliers: estimate.inliers)
        }
    }

    func angles(_ point: SIMD2<Double>, scale: Double) -> MountAngles {
        MountAngles(focusOfExpansion: point / scale, intrinsics: intrinsics, roll: roll)
    }
}
