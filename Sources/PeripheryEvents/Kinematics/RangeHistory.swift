/// One track's recent ranges, and the closing speed and acceleration fitted to them.
///
/// The fit is least squares over the samples of the last `kinematicsWindowSeconds`: a straight line
/// (closing speed only) while the history is short, a parabola (speed at the newest sample and
/// acceleration) once it spans `accelerationMinimumSpanSeconds`, or with
/// `accelerationOnsetMinimumSeconds` a line that bends into a parabola where a braking began. The
/// range is measured afresh in every frame's ego frame, so its rate is the closing speed itself,
/// whatever the ego's speed estimate says; the fit is both the differentiator and the filter.
struct RangeHistory: Sendable {
    /// Fewest samples for a closing speed.
    static let minimumSpeedSamples = 3
    /// Fewest samples for a closing acceleration: two more than the parabola's three parameters,
    /// so that the residuals give its standard error.
    static let minimumAccelerationSamples = 5

    /// `(t, range)`, oldest first.
    private(set) var samples: [SIMD2<Double>] = []
    /// The track's latest lateral offset from the path, for handing the history on (`continuitySeconds`).
    var lateralOffset: Double?

    /// Adds a sample and drops those older than `window` seconds before it.
    mutating func append(t: Double, range: Double, window: Double) {
        guard t.isFinite, range.isFinite else { return }
        samples.append(SIMD2(t, range))
        // A hair of slack keeps a sample exactly `window` old despite rounding in the timestamps.
        samples.removeAll { t - $0.x > window + 1e-9 }
    }

    /// The closing kinematics at the newest sample, `nil` with fewer than three samples, a span
    /// shorter than `minimumSpeedSpanSeconds`, or a closing speed that the straight line fitted to
    /// the history cannot tell from zero (`speedSignificance`).
    ///
    /// The acceleration comes from a parabola (or the bent line of `fitBentLine`), once the history spans
    /// `accelerationMinimumSpanSeconds`, and counts only when it is `accelerationSignificance`
    /// standard errors from zero. It refines a closing the straight line has already seen and never
    /// stands for one: a parabola through a range that wavers about a constant one (a far vehicle
    /// measured now at one part, now at another) bends as much as one through a braking lead, and
    /// one through a range that rose and levelled off bends towards us while the line opens.
    ///
    /// The standard errors take the larger of the residuals' variance and the detector's range
    /// noise (`rangeNoiseMetres`, `rangeNoiseGrowth`) over the samples: a swinging error (the
    /// body's pitch over bumps) fits a short history well and would otherwise pass for motion.
    func closing(configuration: SafetyEventConfiguration) -> ClosingKinematics? {
        guard samples.count >= Self.minimumSpeedSamples, let newest = samples.last, let oldest = samples.first else { return nil }
        let span = newest.x - oldest.x
        guard span > 0, span >= configuration.minimumSpeedSpanSeconds - 1e-9 else { return nil }
        let noise = noiseVariance(configuration)
        guard let line = fitLine(noiseVariance: noise), abs(line.speed) >= configuration.speedSignificance * line.speedError else { return nil }
        // Only a closing: a new track's range settling upwards and then levelling off is an
        // opening line under a parabola that bends towards us, a closing acceleration out of nothing.
        if line.speed > 0, span >= configuration.accelerationMinimumSpanSeconds, samples.count >= Self.minimumAccelerationSamples,
            let bend = configuration.accelerationOnsetMinimumSeconds > 0
                ? fitBentLine(at: newest.x, minimumAfterOnset: configuration.accelerationOnsetMinimumSeconds, noiseVariance: noise)
                : fitParabola(at: newest.x, noiseVariance: noise),
            abs(bend.acceleration) > configuration.accelerationSignificance * bend.accelerationError
        {
            let limit = configuration.maximumClosingAcceleration
            return ClosingKinematics(speed: bend.speed, acceleration: min(max(bend.acceleration, -limit), limit))
        }
        // Without a telling acceleration the straight line is the better speed: the parabola's
        // slope at its end is several times noisier.
        return ClosingKinematics(speed: line.speed, acceleration: nil)
    }

    /// The mean over the samples of the detector's range variance σ(R)², σ(R) = a + b·R².
    private func noiseVariance(_ configuration: SafetyEventConfiguration) -> Double {
        let sum = samples.reduce(0.0) { total, sample in
            let sigma = configuration.rangeNoiseMetres + configuration.rangeNoiseGrowth * sample.y * sample.y
            return total + sigma * sigma
        }
        return sum / Double(samples.count)
    }

    /// The range the history predicts at `t`: its newest range carried on by its closing speed and
    /// acceleration, or the newest range itself without them; nil when it has no sample.
    func predictedRange(at t: Double, configuration: SafetyEventConfiguration) -> Double? {
        guard let newest = samples.last else { return nil }
        let dt = t - newest.x
        guard let closing = closing(configuration: configuration) else { return newest.y }
        return newest.y - closing.speed * dt - (closing.acceleration ?? 0) * dt * dt / 2
    }

    /// The closing speed of the least-squares line and its standard error (with the residuals'
    /// variance floored at `noiseVariance`), `nil` when all samples share one time.
    private func fitLine(noiseVariance: Double) -> (speed: Double, speedError: Double)? {
        let n = Double(samples.count)
        let meanT = samples.reduce(0) { $0 + $1.x } / n
        let meanR = samples.reduce(0) { $0 + $1.y } / n
        var stt = 0.0, str = 0.0
        for s in samples {
            stt += (s.x - meanT) * (s.x - meanT)
            str += (s.x - meanT) * (s.y - meanR)
        }
        guard stt > 1e-12 else { return nil }
        let slope = str / stt
        var residuals = 0.0
        for s in samples {
            let r = s.y - (meanR + slope * (s.x - meanT))
            residuals += r * r
        }
        let variance = max(n > 2 ? residuals / (n - 2) : 0, noiseVariance)
        return (speed: -slope, speedError: (variance / stt).squareRoot())
    }

    /// The least-squares line that bends into a parabola at an onset,
    /// `R = c0 + c1·(t' − t) + c2·max(0, t' − onset)²`, the onset being the sample time, at least
    /// `minimumAfterOnset` before `t`, that leaves the smallest residuals (the earliest on a tie;
    /// at the oldest sample it is the parabola of `fitParabola`): its closing speed at `t`, its
    /// closing acceleration and that acceleration's standard error (with the residuals' variance
    /// floored at `noiseVariance`).
    private func fitBentLine(at t: Double, minimumAfterOnset: Double, noiseVariance: Double)
        -> (speed: Double, acceleration: Double, accelerationError: Double)?
    {
        var best: (residuals: Double, speed: Double, acceleration: Double, accelerationVariance: Double)?
        // Each sample time is a candidate onset; iterating the samples, not a mapped copy of their
        // times, keeps this per-frame fit free of allocations.
        for candidate in samples where t - candidate.x >= minimumAfterOnset - 1e-9 {
            let onset = candidate.x
            // Normal equations of the regressors 1, t' − t and max(0, t' − onset)².
            var a = SIMD3<Double>.zero, d = 0.0, e = 0.0, f = 0.0, b = SIMD3<Double>.zero
            for s in samples {
                let bent = max(0, s.x - onset)
                let x = SIMD3(1, s.x - t, bent * bent)
                a += x[0] * x
                d += x[1] * x[1]
                e += x[1] * x[2]
                f += x[2] * x[2]
                b += s.y * x
            }
            // The symmetric matrix [[a0, a1, a2], [a1, d, e], [a2, e, f]], inverted by cofactors.
            let c00 = d * f - e * e, c01 = a[2] * e - a[1] * f, c02 = a[1] * e - a[2] * d
            let c11 = a[0] * f - a[2] * a[2], c12 = a[1] * a[2] - a[0] * e, c22 = a[0] * d - a[1] * a[1]
            let determinant = a[0] * c00 + a[1] * c01 + a[2] * c02
            guard determinant > 1e-12 * max(1, a[0] * d * f) else { continue }
            let k1 = (c01 * b[0] + c11 * b[1] + c12 * b[2]) / determinant
            let k2 = (c02 * b[0] + c12 * b[1] + c22 * b[2]) / determinant
            let k0 = (c00 * b[0] + c01 * b[1] + c02 * b[2]) / determinant
            var residuals = 0.0
            for s in samples {
                let bent = max(0, s.x - onset)
                let r = s.y - (k0 + k1 * (s.x - t) + k2 * bent * bent)
                residuals += r * r
            }
            guard residuals < (best?.residuals ?? .infinity) else { continue }
            best = (residuals, -(k1 + 2 * k2 * (t - onset)), -2 * k2, c22 / determinant)
        }
        guard let best else { return nil }
        let variance = max(best.residuals / (Double(samples.count) - 3), noiseVariance)
        return (best.speed, best.acceleration, 2 * (variance * best.accelerationVariance).squareRoot())
    }

    /// The least-squares parabola `R = c0 + c1·u + c2·u²` in `u = t − mean(t)`: its closing speed at
    /// `t`, its closing acceleration and that acceleration's standard error (with the residuals'
    /// variance floored at `noiseVariance`).
    private func fitParabola(at t: Double, noiseVariance: Double) -> (speed: Double, acceleration: Double, accelerationError: Double)? {
        let n = Double(samples.count)
        let meanT = samples.reduce(0) { $0 + $1.x } / n
        // Normal equations; centring makes Σu zero and keeps them well conditioned.
        var s2 = 0.0, s3 = 0.0, s4 = 0.0, b0 = 0.0, b1 = 0.0, b2 = 0.0
        for s in samples {
            let u = s.x - meanT, u2 = u * u
            s2 += u2
            s3 += u2 * u
            s4 += u2 * u2
            b0 += s.y
            b1 += u * s.y
            b2 += u2 * s.y
        }
        // The inverse of [[n, 0, s2], [0, s2, s3], [s2, s3, s4]] by cofactors (it is symmetric).
        let c00 = s2 * s4 - s3 * s3, c01 = s2 * s3, c02 = -s2 * s2
        let c11 = n * s4 - s2 * s2, c12 = -n * s3, c22 = n * s2
        let determinant = n * c00 + s2 * c02
        guard determinant > 1e-12 * max(1, n * s2 * s4) else { return nil }
        let k0 = (c00 * b0 + c01 * b1 + c02 * b2) / determinant
        let k1 = (c01 * b0 + c11 * b1 + c12 * b2) / determinant
        let k2 = (c02 * b0 + c12 * b1 + c22 * b2) / determinant
        var residuals = 0.0
        for s in samples {
            let u = s.x - meanT
            let r = s.y - (k0 + k1 * u + k2 * u * u)
            residuals += r * r
        }
        let variance = max(residuals / (n - 3), noiseVariance)
        let u = t - meanT
        return (speed: -(k1 + 2 * k2 * u), acceleration: -2 * k2, accelerationError: 2 * (variance * c22 / determinant).squareRoot())
    }
}
