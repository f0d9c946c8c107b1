import Foundation
import PeripheryGeometry

/// What `DriveMountCalibration.run` found, in degrees: `periphery calibrate --json` prints it as
/// it encodes (snake-case keys; unknown values as `null`).
public struct MountCalibrationReport: Codable, Sendable, Equatable {
    /// Estimated pitch and yaw (nil before any accepted pair).
    public var pitchDegrees: Double?
    public var yawDegrees: Double?
    /// The roll used to level the estimates (from gravity when the drive has it).
    public var rollDegrees: Double
    /// Robust spread of the window's pitches.
    public var sigmaPitchDegrees: Double
    /// Accepted pairs in the window, and the share of pairs that reached it.
    public var samples: Int
    public var acceptRate: Double
    /// The window's pitch without gyro de-rotation: a diagnostic.
    public var pitchWithoutDerotationDegrees: Double?
    /// Whether the window holds enough pairs to apply its pitch.
    public var converged: Bool
    /// Mean time of the flow, de-rotation and RANSAC per pair, milliseconds.
    public var msPerPair: Double?
    /// The gyro bias subtracted before de-rotation, device axes, rad/s.
    public var gyroBias: [Double]
    /// Yaw from the GPS course against the camera heading, and the fixes it rests on.
    public var yawFromCourseDegrees: Double?
    public var courseFixes: Int

    enum CodingKeys: String, CodingKey {
        case pitchDegrees = "pitch_deg", yawDegrees = "yaw_deg", rollDegrees = "roll_deg"
        case sigmaPitchDegrees = "sigma_pitch_deg", samples, acceptRate = "accept_rate"
        case pitchWithoutDerotationDegrees = "pitch_without_derotation_deg", converged
        case msPerPair = "ms_per_pair", gyroBias = "gyro_bias_rad_s"
        case yawFromCourseDegrees = "yaw_from_course_deg", courseFixes = "course_fixes"
    }

    /// The report of `window`, levelled with `roll` (radians).
    public init(
        window: PitchWindow, roll: Double, gyroBias: SIMD3<Double>, courseYaw: (yaw: Double, fixes: Int)?, msPerPair: Double?
    ) {
        let degrees = 180 / Double.pi
        pitchDegrees = window.pitch.map { $0 * degrees }
        yawDegrees = window.yaw.map { $0 * degrees }
        rollDegrees = roll * degrees
        sigmaPitchDegrees = window.pitchSigma * degrees
        samples = window.samples
        acceptRate = window.acceptRate
        pitchWithoutDerotationDegrees = window.pitchWithoutDerotation.map { $0 * degrees }
        converged = window.isConverged
        self.msPerPair = msPerPair
        self.gyroBias = [gyroBias.x, gyroBias.y, gyroBias.z]
        yawFromCourseDegrees = courseYaw.map { $0.yaw * degrees }
        courseFixes = courseYaw?.fixes ?? 0
    }

    /// Encodes every key, unknown values as `null`, as the report always has.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pitchDegrees, forKey: .pitchDegrees)
        try c.encode(yawDegrees, forKey: .yawDegrees)
        try c.encode(rollDegrees, forKey: .rollDegrees)
        try c.encode(sigmaPitchDegrees, forKey: .sigmaPitchDegrees)
        try c.encode(samples, forKey: .samples)
        try c.encode(acceptRate, forKey: .acceptRate)
        try c.encode(pitchWithoutDerotationDegrees, forKey: .pitchWithoutDerotationDegrees)
        try c.encode(converged, forKey: .converged)
        try c.encode(msPerPair, forKey: .msPerPair)
        try c.encode(gyroBias, forKey: .gyroBias)
        try c.encode(yawFromCourseDegrees, forKey: .yawFromCourseDegrees)
        try c.encode(courseFixes, forKey: .courseFixes)
    }
}
