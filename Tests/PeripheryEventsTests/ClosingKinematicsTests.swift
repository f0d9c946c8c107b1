import Foundation
import Testing

@testable import PeripheryEvents

/// The fit of closing speed and acceleration to a range history (`RangeHistory`), against the
/// kinematics that generated the ranges.
struct ClosingKinematicsTests {
    /// The history of `range(t)` sampled at 10 frames/s for frames `0..<frames`.
    private func history(frames: Int, window: Double = 2.0, _ range: (Double) -> Double) -> RangeHistory {
        var history = RangeHistory()
        for k in 0..<frames {
            let t = EventScene.time(k)
            history.append(t: t, range: range(t), window: window)
        }
        return history
    }

    @Test func tooFewSamplesGiveNothing() {
        #expect(history(frames: 2) { 30 - 10 * $0 }.closing(configuration: SafetyEventConfiguration()) == nil)
        var sameTime = RangeHistory()
        for _ in 0..<4 { sameTime.append(t: 1, range: 20, window: 2) }
        #expect(sameTime.closing(configuration: SafetyEventConfiguration()) == nil)
    }

    @Test func constantClosingSpeedIsExactAndHasNoAcceleration() throws {
        // 12 m/s over the whole 2 s window: the line and the parabola both fit exactly; any
        // acceleration is rounding (tolerance 1e-9 m/s²).
        for frames in [3, 10, 30] {
            let closing = try #require(history(frames: frames) { 40 - 12 * $0 }.closing(configuration: SafetyEventConfiguration()))
            #expect(abs(closing.speed - 12) <= 1e-9)
            #expect(abs(closing.acceleration ?? 0) <= 1e-9)
        }
    }

    @Test func constantDecelerationIsExactOnceTheSpanAllowsIt() throws {
        // NHTSA's LVD: R = 30 − ½·2.94·t², closing speed 2.94·t, acceleration 2.94.
        let lvd = { (t: Double) in 30 - 0.5 * 2.94 * t * t }
        // Before 1.5 s of history: the line only, whose slope is the speed at the middle time.
        let short = try #require(history(frames: 11, lvd).closing(configuration: SafetyEventConfiguration()))
        #expect(short.acceleration == nil)
        #expect(abs(short.speed - 2.94 * 0.5) <= 1e-9)
        // From 1.5 s on: the parabola, exact at the newest sample (tolerance 1e-9).
        for frames in [16, 21, 25] {
            let t = EventScene.time(frames - 1)
            let closing = try #require(history(frames: frames, lvd).closing(configuration: SafetyEventConfiguration()))
            #expect(abs(closing.speed - 2.94 * t) <= 1e-9)
            #expect(abs((closing.acceleration ?? .nan) - 2.94) <= 1e-9)
        }
    }

    @Test func windowKeepsTwoSecondsOfSamples() {
        // 10 frames/s over 3 s: the samples of the last 2 s, both ends included.
        let kept = history(frames: 31) { 40 - $0 }
        #expect(kept.samples.count == 21)
        #expect(abs((kept.samples.first?.x ?? .nan) - 1.0) <= 1e-12)
    }

    @Test func accelerationIsClampedToTheMaximum() throws {
        // A closing acceleration of 20 m/s² is clamped to 10.
        let closing = try #require(history(frames: 21) { 50 - 10 * $0 * $0 }.closing(configuration: SafetyEventConfiguration()))
        #expect(closing.acceleration == 10)
    }

    @Test func noisyRangesWithoutAccelerationGiveNone() throws {
        // Constant closing at 8 m/s with ±0.4 m of noise that alternates in sign. By hand, over the
        // 21 samples (u = t − 1 s = j/10, j = −10…10): the parabola's coefficient of u² is
        // 0.4·(Σu²(−1)^j − ū²·Σ(−1)^j) / (Σu⁴ − 21·ū²²) = 0.4·(1.1 − 0.367) / 2.244 = 0.13, an
        // acceleration of −0.26 m/s², whose standard error (residuals ≈ 0.43 m) is 0.58 m/s²: within
        // two of zero, so it is left out. The line then gives the speed untilted, since
        // Σu·(−1)^j = 0 over the symmetric window (tolerance 1e-9 m/s).
        let noisy = history(frames: 21) { t in
            let k = Int((t * 10).rounded())
            return 30 - 8 * t + (k.isMultiple(of: 2) ? 0.4 : -0.4)
        }
        let closing = try #require(noisy.closing(configuration: SafetyEventConfiguration()))
        #expect(closing.acceleration == nil)
        #expect(abs(closing.speed - 8) <= 1e-9)
        // With the significance test off, the noise's acceleration is used as it is.
        var always = SafetyEventConfiguration()
        always.accelerationSignificance = 0
        #expect(abs((noisy.closing(configuration: always)?.acceleration ?? .nan) + 0.261) <= 0.005)
    }
}
