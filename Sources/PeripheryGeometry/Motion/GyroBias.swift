/// The constant bias of a gyro, estimated from a drive's own readings.
///
/// De-rotation turns a gyro bias `b` into a focus-of-expansion error of about `b·Z/v` (depth of
/// the tracked points over speed, ≈ 1–2 s on roads), so 0.003 rad/s — a raw MEMS gyro's bias —
/// costs 0.2–0.35° of pitch and yaw, more than the estimate is worth. A car's pitch and roll stay
/// bounded, so the true rotation rate about the horizontal axes averages to zero over a drive;
/// about the vertical it averages to the heading change over the time, which the GPS course gives.
/// The bias is therefore the mean reading minus that mean yaw rate along "up" (the mean gravity
/// direction reversed). Without a course the vertical component is left alone.
package struct GyroBias: Sendable {
    /// Sum of the rotation rates, device axes, rad/s.
    private var rateSum = SIMD3<Double>.zero
    /// Sum of the gravity vectors, device axes.
    private var gravitySum = SIMD3<Double>.zero
    /// Readings added.
    package private(set) var samples = 0
    /// Time of the first and of the last reading, seconds.
    private var first = Double.infinity, last = -Double.infinity

    /// Fewest seconds of readings before `bias` reports anything but zero: over shorter spans the
    /// body's own pitching does not average out.
    package var minimumSpan = 20.0

    /// No readings yet.
    package init() {}

    /// Adds one motion sample: its time, rotation rate and gravity, device axes.
    package mutating func add(t: Double, rate: SIMD3<Double>, gravity: SIMD3<Double>) {
        guard t.isFinite, rate.x.isFinite, rate.y.isFinite, rate.z.isFinite,
            gravity.x.isFinite, gravity.y.isFinite, gravity.z.isFinite
        else { return }
        rateSum += rate
        gravitySum += gravity
        samples += 1
        first = min(first, t)
        last = max(last, t)
    }

    /// Seconds between the first and the last reading.
    package var duration: Double { samples > 0 ? last - first : 0 }

    /// The bias, device axes, rad/s, given the drive's mean yaw rate (counter-clockwise seen from
    /// above, rad/s) when a course is known; zero until `minimumSpan` seconds have been added.
    package func bias(meanYawRate: Double?) -> SIMD3<Double> {
        let norm = (gravitySum * gravitySum).sum().squareRoot()
        guard samples > 0, duration >= minimumSpan, norm > 0 else { return .zero }
        let mean = rateSum / Double(samples)
        let up = -gravitySum / norm
        let alongUp = (mean * up).sum()
        return mean - (meanYawRate ?? alongUp) * up
    }

    /// The mean yaw rate (counter-clockwise, rad/s) of a drive from GPS courses: `(t, degrees
    /// clockwise from north)` fixes, unwrapped between consecutive fixes. Nil with fewer than two
    /// fixes or a span under one second.
    package static func meanYawRate(courses: [(t: Double, degrees: Double)]) -> Double? {
        guard let first = courses.first, let last = courses.last, last.t - first.t >= 1 else { return nil }
        var turned = 0.0
        for (a, b) in zip(courses, courses.dropFirst()) {
            turned += (b.degrees - a.degrees).remainder(dividingBy: 360)
        }
        // Compass courses turn clockwise; yaw rates are counter-clockwise.
        return -turned * .pi / 180 / (last.t - first.t)
    }
}
