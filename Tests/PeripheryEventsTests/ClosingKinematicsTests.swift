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
        #expect(history(frames: 2) { 30 - 10 * $0 }.closing(configuration: EventScene.exactRanges) == nil)
        var sameTime = RangeHistory()
        for _ in 0..<4 { sameTime.append(t: 1, range: 20, window: 2) }
        #expect(sameTime.closing(configuration: EventScene.exactRanges) == nil)
    }

    @Test func constantClosingSpeedIsExactAndHasNoAcceleration() throws {
        // 12 m/s over the whole 2 s window: the line and the parabola both fit exactly; any
        // acceleration is rounding (tolerance 1e-9 m/s²).
        for frames in [3, 10, 30] {
            let closing = try #require(history(frames: frames) { 40 - 12 * $0 }.closing(configuration: EventScene.exactRanges))
            #expect(abs(closing.speed - 12) <= 1e-9)
            #expect(abs(closing.acceleration ?? 0) <= 1e-9)
        }
    }

    @Test func constantDecelerationIsExactOnceTheSpanAllowsIt() throws {
        // NHTSA's LVD: R = 30 − ½·2.94·t², closing speed 2.94·t, acceleration 2.94.
        let lvd = { (t: Double) in 30 - 0.5 * 2.94 * t * t }
        // Before 1.5 s of history: the line only, whose slope is the speed at the middle time.
        let short = try #require(history(frames: 11, lvd).closing(configuration: EventScene.exactRanges))
        #expect(short.acceleration == nil)
        #expect(abs(short.speed - 2.94 * 0.5) <= 1e-9)
        // From 1.5 s on: the parabola, exact at the newest sample (tolerance 1e-9).
        for frames in [16, 21, 25] {
            let t = EventScene.time(frames - 1)
            let closing = try #require(history(frames: frames, lvd).closing(configuration: EventScene.exactRanges))
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

    @Test func aBendWithoutClosingIsNoAcceleration() throws {
        // R = 33 − 2·(t − 1)² over 2 s: a range that rises and falls back, as a far vehicle's does
        // when the detector measures it now at one part, now at another. The parabola through it
        // is exact, with a closing speed of 4 m/s at the newest sample and an acceleration of 4 m/s²
        // whose standard error with the noise floor (σ ≈ 1.24 m) is 1.66 m/s²: 2.4 errors, past the
        // 2 required, a time to collision of 2.9 s. But the straight line's closing speed is 0
        // over the symmetric window: nothing is known.
        let configuration = SafetyEventConfiguration()
        let bend = history(frames: 21) { 33 - 2 * ($0 - 1) * ($0 - 1) }
        #expect(bend.closing(configuration: configuration) == nil)
        // The same bend on a lead closing at 5 m/s (the line's speed, 14 errors from zero) is
        // known, with the parabola's figures: 9 m/s and 4 m/s² (3.1 errors), tolerance 1e-9.
        let closing = try #require(
            history(frames: 21) { 33 - 5 * $0 - 2 * ($0 - 1) * ($0 - 1) }.closing(configuration: configuration))
        #expect(abs(closing.speed - 9) <= 1e-9 && abs((closing.acceleration ?? .nan) - 4) <= 1e-9)
    }

    @Test func anOpeningIsNotTurnedIntoAClosing() throws {
        // R = 30 − 2·(t − 1.5)² over 2 s: a new track's range settling upwards and levelling off
        // (free-flow test drive 319). The straight line opens at 2 m/s, 5.4 standard errors from
        // zero (σ ≈ 1.04 m: 0.37 m/s); the parabola through it is exact, closing at 2 m/s at the
        // newest sample with 4 m/s² (2.9 errors), a time to collision of 3.4 s. The line's opening
        // stands, without an acceleration (tolerance 1e-9 m/s).
        let settling = try #require(history(frames: 21) { 30 - 2 * ($0 - 1.5) * ($0 - 1.5) }.closing(configuration: SafetyEventConfiguration()))
        #expect(abs(settling.speed + 2) <= 1e-9 && settling.acceleration == nil)
    }

    @Test func theBentLineFindsABrakingOnset() throws {
        // NHTSA's LVD seen over a 3 s window: the lead holds its distance for 1 s, then brakes at
        // 2.94 m/s², R = 30 − ½·2.94·max(0, t − 1)², newest sample 2 s into the braking. A parabola
        // over the whole window bends less than the lead (2.30 m/s², closing at 5.21 m/s); the line
        // bent at an onset found among the samples at least 0.5 s old is exact: 5.88 m/s and
        // 2.94 m/s² (tolerance 1e-9).
        var configuration = EventScene.exactRanges
        configuration.kinematicsWindowSeconds = 3
        configuration.accelerationOnsetMinimumSeconds = 0
        let ranges = history(frames: 31, window: 3) { 30 - 0.5 * 2.94 * max(0, $0 - 1) * max(0, $0 - 1) }
        let parabola = try #require(ranges.closing(configuration: configuration))
        #expect(abs((parabola.acceleration ?? .nan) - 2.30) <= 0.01 && abs(parabola.speed - 5.21) <= 0.01)
        configuration.accelerationOnsetMinimumSeconds = 0.5
        let bent = try #require(ranges.closing(configuration: configuration))
        #expect(abs(bent.speed - 5.88) <= 1e-9 && abs((bent.acceleration ?? .nan) - 2.94) <= 1e-9)
        // A parabola over the whole window is a bent line whose onset is its oldest sample: the
        // same figures either way (LVD braking from the start, tolerance 1e-9).
        let braking = history(frames: 25, window: 3) { 30 - 0.5 * 2.94 * $0 * $0 }
        let both = try [0, 0.5].map { onset in
            configuration.accelerationOnsetMinimumSeconds = onset
            return try #require(braking.closing(configuration: configuration))
        }
        #expect(abs(both[0].speed - both[1].speed) <= 1e-9 && abs((both[0].acceleration ?? .nan) - (both[1].acceleration ?? .nan)) <= 1e-9)
    }

    @Test func accelerationIsClampedToTheMaximum() throws {
        // A closing acceleration of 20 m/s² is clamped to 10.
        let closing = try #require(history(frames: 21) { 50 - 10 * $0 * $0 }.closing(configuration: EventScene.exactRanges))
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
        let closing = try #require(noisy.closing(configuration: EventScene.exactRanges))
        #expect(closing.acceleration == nil)
        #expect(abs(closing.speed - 8) <= 1e-9)
        // With the significance test off, the noise's acceleration is used as it is: the
        // parabola's worked above (the bent line's onset would chase the alternating noise).
        var always = EventScene.exactRanges
        always.accelerationSignificance = 0
        always.accelerationOnsetMinimumSeconds = 0
        #expect(abs((noisy.closing(configuration: always)?.acceleration ?? .nan) + 0.261) <= 0.005)
    }

    /// The mean of the default range noise σ(R)² = (0.2 + 0.001·R²)² over `ranges`.
    private static func noiseVariance(_ ranges: [Double]) -> Double {
        ranges.map { (0.2 + 0.001 * $0 * $0) * (0.2 + 0.001 * $0 * $0) }.reduce(0, +) / Double(ranges.count)
    }

    @Test func aClosingSpeedNeedsHalfASecondOfHistory() throws {
        // 12 m/s from 20 m: nothing over 0.4 s (5 samples); over 0.5 s the exact line, whose
        // standard error with the noise floor, √(σ²/Σ(t − t̄)²) = √(0.248 / 0.175) = 1.19 m/s, puts
        // it 10 errors from zero.
        let closing20 = { (t: Double) in 20 - 12 * t }
        #expect(history(frames: 5, closing20).closing(configuration: SafetyEventConfiguration()) == nil)
        let closing = try #require(history(frames: 6, closing20).closing(configuration: SafetyEventConfiguration()))
        #expect(abs(closing.speed - 12) <= 1e-9 && closing.acceleration == nil)
        #expect(abs(Self.noiseVariance((0..<6).map { closing20(EventScene.time($0)) }) - 0.248) <= 0.001)
    }

    @Test func aSlowClosingFarAwayIsWithinTheNoise() throws {
        // 1 m/s at 30 m over 0.5 s: σ(30 m) = 1.1 m, a speed error of √(1.178 / 0.175) = 2.59 m/s:
        // the speed is under two errors, so unknown; exact ranges give it.
        let slow = history(frames: 6) { 30 - $0 }
        #expect(slow.closing(configuration: SafetyEventConfiguration()) == nil)
        #expect(abs(Self.noiseVariance(slow.samples.map(\.y)) - 1.178) <= 0.001)
        #expect(abs((slow.closing(configuration: EventScene.exactRanges)?.speed ?? .nan) - 1) <= 1e-9)
    }

    @Test func brakingIsSeenNearButNotFarAway() throws {
        // NHTSA's LVD braking, 2 s of it. From 40 m the acceleration's standard error with the
        // noise floor is 2.21 m/s²: 2.94 m/s² is 1.3 errors, under the 2 required, so the line's
        // mean closing speed (2.94 m/s at the middle time) stands. From 12 m it is 0.41 m/s²: 7.2
        // errors, and the parabola gives the speed and acceleration exactly.
        let far = try #require(
            history(frames: 21) { 40 - 0.5 * 2.94 * $0 * $0 }.closing(configuration: SafetyEventConfiguration()))
        #expect(far.acceleration == nil && abs(far.speed - 2.94) <= 1e-9)
        let near = try #require(
            history(frames: 21) { 12 - 0.5 * 2.94 * $0 * $0 }.closing(configuration: SafetyEventConfiguration()))
        #expect(abs((near.acceleration ?? .nan) - 2.94) <= 1e-9 && abs(near.speed - 5.88) <= 1e-9)
    }
}
