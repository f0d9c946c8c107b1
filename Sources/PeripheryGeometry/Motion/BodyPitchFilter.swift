import Foundation
import PeripheryCore

/// Follows the body's pitch over the road, frame by frame, from the phone's gyro and gravity.
///
/// The mount's pitch is calibrated once, but the body pitches over bumps by a few tenths of a
/// degree at 1–3 Hz, and a pitch error δ moves a ground point at range R by about R²·δ/h: ±3 m at
/// 30 m for ±0.25° (`docs/results/safety-events.md`). The gyro sees those bumps well but drifts
/// with its bias; gravity (the motion table's `gx gy gz`, already separated from the user's
/// acceleration) is absolute but noisy. A two-state Kalman filter, pitch and the gyro's bias about
/// the pitch axis, takes the gyro for the motion and gravity for the level. What it reports is the
/// pitch less its own slow mean (`groundSeconds`), so that the calibrated mount stays the
/// reference and a road's grade, which tilts gravity but not the camera over the road, is not
/// taken for body pitch.
public struct BodyPitchFilter: Sendable {
    /// The sensors' noise, per reading.
    public struct Noise: Sendable, Hashable {
        /// The gyro's white noise, rad/s per reading (a MEMS gyro: about 0.003).
        public var gyro = 0.003
        /// Gravity's noise per axis, in g per reading (the accelerometer: about 0.01).
        public var gravity = 0.01
        /// How fast the gyro's bias may wander, rad/s per √s.
        public var biasWalk = 1e-4
        /// The defaults.
        public init() {}
    }

    /// The sensors' noise.
    public let noise: Noise
    /// Device axes → vehicle axes of the calibrated mount.
    private let deviceToVehicle: Matrix3
    /// Seconds over which the pitch's mean is the reference level.
    public var groundSeconds = 10.0

    /// Pitch (nose up, radians) and the gyro's pitch-axis bias (rad/s), and their covariance.
    private var pitch = 0.0, bias = 0.0
    private var p00 = 0.0, p01 = 0.0, p11 = 0.0
    /// The mean of the filtered pitch: cumulative for the first `groundSeconds`, then exponential.
    private var level = 0.0
    private var started: Double?
    private var latest: Double?

    /// A filter for a phone mounted with `mount`.
    public init(mount: MountPose, noise: Noise = Noise()) {
        self.noise = noise
        deviceToVehicle = DeviceAxes.fromVehicle(mount).transposed
    }

    /// The body's pitch over the road at the latest reading, radians, nose up positive; nil before
    /// the first gravity reading. Add it to the mount's pitch.
    public var bodyPitch: Double? { started == nil ? nil : pitch - level }

    /// Feeds the readings of `motion` newer than the last one taken, in time order. Readings of
    /// gyro and gravity with the same time are one row of the motion table; a gyro reading without
    /// gravity only moves the pitch.
    public mutating func add(_ motion: MotionSample) {
        var gravity = motion.gravity.makeIterator()
        var nextGravity = gravity.next()
        for reading in motion.gyro where reading.t.isFinite && latest.map({ reading.t > $0 }) ?? true {
            while let g = nextGravity, g.t < reading.t { nextGravity = gravity.next() }
            let g = nextGravity.flatMap { $0.t == reading.t ? $0.g : nil }
            add(t: reading.t, rate: reading.rate, gravity: g)
        }
    }

    /// One reading: time (s), rotation rate (device axes, rad/s) and gravity (device axes, g).
    mutating func add(t: Double, rate: SIMD3<Double>, gravity: SIMD3<Double>?) {
        guard rate.x.isFinite, rate.y.isFinite, rate.z.isFinite else { return }
        let measured = gravity.flatMap { g -> Double? in
            let v = deviceToVehicle * g
            guard v.x.isFinite, v.z.isFinite, v.z < 0 else { return nil }
            return atan2(-v.x, -v.z)
        }
        // Nose-up pitching turns about −y (ISO 8855: y left).
        let pitchRate = -(deviceToVehicle * rate).y
        guard let previous = latest, let start = started else {
            // The first level comes from gravity; until then there is nothing to integrate from.
            guard let measured else { return }
            pitch = measured
            bias = 0
            p00 = noise.gravity * noise.gravity
            p01 = 0
            p11 = noise.gyro * noise.gyro
            level = measured
            started = t
            latest = t
            return
        }
        let dt = t - previous
        latest = t
        guard dt > 0, dt < 1 else { return }
        // Predict: pitch += (rate − bias)·dt.
        pitch += (pitchRate - bias) * dt
        let q = noise.gyro * dt
        p00 += -2 * dt * p01 + dt * dt * p11 + q * q
        p01 += -dt * p11
        p11 += noise.biasWalk * noise.biasWalk * dt
        if let measured {
            let r = noise.gravity * noise.gravity
            let s = p00 + r
            let k0 = p00 / s, k1 = p01 / s
            let innovation = measured - pitch
            pitch += k0 * innovation
            bias += k1 * innovation
            (p00, p01, p11) = ((1 - k0) * p00, (1 - k0) * p01, p11 - k1 * p01)
        }
        let age = t - start
        let weight = age < groundSeconds ? dt / max(age, dt) : dt / groundSeconds
        level += weight * (pitch - level)
    }
}
