import Foundation

/// Where a mount value came from; a value may only be overwritten by one of equal or higher rank
/// (`docs/reference/calibration-from-motion.md#91-pitch-and-yaw-from-the-focus-of-expansion`, `#93-gravity-roll-and-course-yaw`).
package enum PoseProvenance: Int, Sendable, Hashable, Comparable, CaseIterable {
    case fallback = 0
    case gravity = 1
    case manual = 2
    case estimated = 3

    package static func < (a: PoseProvenance, b: PoseProvenance) -> Bool { a.rawValue < b.rawValue }

    /// Whether a value of provenance `source` may replace one of this provenance.
    func mayBeOverwritten(by source: PoseProvenance) -> Bool { source >= self }
}

/// Mount pitch prior and roll from the phone's gravity vector (§9.3): gravity pitch
/// `asin(g.z)` (mount plus road grade) and roll `atan2(−g.y, −g.x)`, each smoothed by an EMA
/// `0.98·old + 0.02·new` per sample (τ ≈ 0.5 s at 100 Hz). A roll beyond 25° is not a landscape
/// mount the pipeline can use: roll then reads 0 and `rollUnrecoverable` is set.
package struct GravityPose: Sendable, Hashable {
    /// Smoothed gravity pitch, radians (nil before the first sample).
    package private(set) var pitch: Double?
    /// Smoothed roll, radians.
    package private(set) var roll: Double?
    /// Whether the latest roll was beyond 25°.
    package private(set) var rollUnrecoverable = false

    /// No samples yet.
    package init() {}

    /// Adds one gravity sample in device axes (any length; it is normalised).
    package mutating func add(gravity g: SIMD3<Double>) {
        let norm = (g * g).sum().squareRoot()
        guard norm > 0, norm.isFinite else { return }
        let u = g / norm
        let samplePitch = asin(min(max(u.z, -1), 1))
        // §9.3 writes atan2(g.y, −g.x); through the device axes of §2.3 and the rotation of §4.2
        // that is minus the mount roll (left side up reads negative), so the sign is flipped here
        // to return `MountPose.roll` (checked in the tests against `DeviceAxes.fromVehicle`).
        let sampleRoll = atan2(-u.y, -u.x)
        pitch = pitch.map { 0.98 * $0 + 0.02 * samplePitch } ?? samplePitch
        if abs(sampleRoll) <= 25 * .pi / 180 {
            roll = roll.map { 0.98 * $0 + 0.02 * sampleRoll } ?? sampleRoll
            rollUnrecoverable = false
        } else {
            roll = 0
            rollUnrecoverable = true
        }
    }
}
