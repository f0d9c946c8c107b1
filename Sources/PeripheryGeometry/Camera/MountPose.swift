import Foundation
import PeripheryCore

/// How the camera sits in the vehicle: three angles, a height and a position.
///
/// Signs (ISO 8855 vehicle frame, x forward, y left, z up):
/// - `pitch` positive nose-up, measured against the direction of travel, not gravity;
/// - `roll` positive when the camera is rolled clockwise seen from behind (its left side higher);
/// - `yaw` positive when the camera points left of the direction of travel.
public struct MountPose: Sendable, Hashable, Codable {
    /// Nose-up rotation, radians.
    public var pitch: Double
    /// Clockwise roll seen from behind, radians.
    public var roll: Double
    /// Leftward rotation, radians.
    public var yaw: Double
    /// Camera height above the road, metres.
    public var height: Double
    /// Camera position forward of the vehicle origin, metres.
    public var forwardOfOrigin: Double
    /// Camera offset from the vehicle centreline, positive left, metres.
    ///
    /// The vehicle origin stays on the centreline, so a camera mounted left of it sees the road's
    /// points shifted right by this much.
    public var lateralOffset: Double

    /// Creates a pose from angles in radians.
    public init(
        pitch: Double, roll: Double = 0, yaw: Double = 0, height: Double, forwardOfOrigin: Double,
        lateralOffset: Double = 0
    ) {
        self.pitch = pitch
        self.roll = roll
        self.yaw = yaw
        self.height = height
        self.forwardOfOrigin = forwardOfOrigin
        self.lateralOffset = lateralOffset
    }

    /// Creates a pose from angles in degrees.
    public init(
        pitchDegrees: Double, rollDegrees: Double = 0, yawDegrees: Double = 0, height: Double,
        forwardOfOrigin: Double, lateralOffset: Double = 0
    ) {
        self.init(
            pitch: pitchDegrees * .pi / 180, roll: rollDegrees * .pi / 180, yaw: yawDegrees * .pi / 180,
            height: height, forwardOfOrigin: forwardOfOrigin, lateralOffset: lateralOffset)
    }

    /// The comma EON rig: pitch −3.659° (median of seven drives, nose-down), height 1.20 m,
    /// 1.65 m forward of the origin. Used when no plausible pose is known.
    public static let fallback = MountPose(pitchDegrees: -3.659, height: 1.20, forwardOfOrigin: 1.65)

    /// Largest plausible magnitude of pitch, roll and yaw, degrees.
    static let maxAngleDegrees = 25.0
    /// Plausible camera heights (open interval), metres.
    static let heightRange = 0.3...3.0
    /// Plausible forward positions (open interval), metres.
    public static let forwardRange = -2.0...6.0
    /// Largest plausible lateral offset magnitude, metres: half the widest road vehicle (2.55 m)
    /// rounded up, so the camera is still inside the vehicle.
    static let maxLateralOffset = 1.3

    /// Checks the pose against the plausibility limits.
    ///
    /// - Throws: `CalibrationError` naming `pitch_deg`, `roll_deg`, `yaw_deg`, `height_m`,
    ///   `forward_of_origin_m` or `lateral_offset_m`.
    public func validate() throws(CalibrationError) {
        let degrees = MountPose.maxAngleDegrees
        for (value, name) in [(pitch, "pitch_deg"), (roll, "roll_deg"), (yaw, "yaw_deg")] {
            try checkField(value * 180 / .pi, name, in: -degrees...degrees, allowed: "|angle| ≤ \(degrees)°")
        }
        try checkField(height, "height_m", in: MountPose.heightRange, open: true, allowed: "0.3 < h < 3.0")
        try checkField(
            forwardOfOrigin, "forward_of_origin_m", in: MountPose.forwardRange, open: true, allowed: "−2.0 < f < 6.0")
        try checkField(
            lateralOffset, "lateral_offset_m", in: -MountPose.maxLateralOffset...MountPose.maxLateralOffset,
            allowed: "|offset| ≤ \(MountPose.maxLateralOffset)")
    }

    /// Whether `validate()` passes.
    public var isPlausible: Bool { (try? validate()) != nil }

    /// The camera centre in the vehicle frame: `(forwardOfOrigin, lateralOffset, height)`.
    public var cameraCentre: SIMD3<Double> { SIMD3(forwardOfOrigin, lateralOffset, height) }

    /// The vehicle → sensor rotation `R = Rx(−roll) · Ry(pitch) · Rz(−yaw)`.
    ///
    /// At zero roll and yaw this is the reference's Python `Ry(pitch)`: a camera looking down by d
    /// has vehicle → sensor `Ry(−d)`.
    public var vehicleToSensorRotation: Matrix3 {
        MountPose.rotationX(-roll) * MountPose.rotationY(pitch) * MountPose.rotationZ(-yaw)
    }

    /// `sensor_T_vehicle = [R | −R·c]`: maps vehicle points into the camera's ISO 8855 sensor frame.
    public var sensorFromVehicle: RigidTransform {
        let r = vehicleToSensorRotation
        return RigidTransform(rotation: r, translation: -(r * cameraCentre))
    }

    static func rotationX(_ a: Double) -> Matrix3 {
        Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, cos(a), -sin(a)), SIMD3(0, sin(a), cos(a)))
    }

    static func rotationY(_ p: Double) -> Matrix3 {
        Matrix3(rows: SIMD3(cos(p), 0, sin(p)), SIMD3(0, 1, 0), SIMD3(-sin(p), 0, cos(p)))
    }

    static func rotationZ(_ b: Double) -> Matrix3 {
        Matrix3(rows: SIMD3(cos(b), -sin(b), 0), SIMD3(sin(b), cos(b), 0), SIMD3(0, 0, 1))
    }
}
