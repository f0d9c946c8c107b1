import Testing

@testable import PeripheryCore

/// Accumulation over frames and the derived figures of `DetectionReport`.
struct EvaluationReportTests {
    static let tolerance = 1e-12

    /// Pred 179°, GT −179°: Δ = 358° → wraps to −2° → 2°. Pred −179°, GT 179°: also 2°.
    /// Opposite headings (0 vs 180°, −90° vs 90°) cost 180°. 10° vs 370° (a full turn apart): 0°.
    @Test(arguments: [
        (179.0, -179.0, 2.0), (-179.0, 179.0, 2.0), (0.0, 180.0, 180.0), (-90.0, 90.0, 180.0),
        (10.0, 370.0, 0.0), (30.0, 10.0, 20.0), (-170.0, 20.0, 170.0),
    ])
    func yawErrorWraps(predDeg: Double, gtDeg: Double, expected: Double) {
        let pair = MatchedPair(
            prediction: EvalBox.pred(10, 0, yaw: EvalBox.rad(predDeg)),
            groundTruth: EvalBox.gt(10, 0, yaw: EvalBox.rad(gtDeg)))
        #expect(abs(pair.yawErrorDegrees - expected) < 1e-9)
        #expect(pair.yawErrorDegrees >= 0 && pair.yawErrorDegrees <= 180)
        var eval = DetectionEvaluation()
        eval.add(predictions: [pair.prediction], groundTruth: [pair.groundTruth])
        #expect(abs((eval.report.medianYawErrorDegrees ?? -1) - expected) < 1e-9)
    }

    /// Centre errors 0.25, 1.0, 0.5 (one TP per frame, GT at y = 0, prediction offset in y):
    /// odd count → sorted [0.25, 0.5, 1.0] → 0.5. Add 1.5 → [0.25, 0.5, 1.0, 1.5] → (0.5 + 1.0)/2 = 0.75.
    @Test func medianOddAndEven() {
        var eval = DetectionEvaluation()
        for offset in [0.25, 1.0, 0.5] {
            eval.add(predictions: [EvalBox.pred(20, offset)], groundTruth: [EvalBox.gt(20, 0)])
        }
        #expect(eval.report.medianCentreError == 0.5)
        eval.add(predictions: [EvalBox.pred(20, -1.5)], groundTruth: [EvalBox.gt(20, 0)])
        #expect(eval.report.medianCentreError == 0.75)
        #expect(eval.report.counts == MatchCounts(truePositives: 4, falsePositives: 0, falseNegatives: 0))
    }

    /// Medians are over TP pairs only: an FP far away with a wild yaw changes nothing.
    /// Yaw errors 10° and 30° (even) → 20°.
    @Test func mediansIgnoreUnmatched() {
        var eval = DetectionEvaluation()
        eval.add(
            predictions: [EvalBox.pred(10, 0, yaw: EvalBox.rad(10)), EvalBox.pred(30, 5, yaw: 3)],
            groundTruth: [EvalBox.gt(10, 0)])
        eval.add(predictions: [EvalBox.pred(10, 0, yaw: EvalBox.rad(-30))], groundTruth: [EvalBox.gt(10, 0)])
        let report = eval.report
        #expect(report.counts == MatchCounts(truePositives: 2, falsePositives: 1, falseNegatives: 0))
        #expect(abs((report.medianYawErrorDegrees ?? -1) - 20) < 1e-9)
        #expect(report.medianCentreError == 0)
    }

    /// One frame:
    /// - GT (5, 0) range 5, GT (9, 4) range √97 ≈ 9.849 (both inside 10 m);
    /// - pred (5, 0.5) range ≈ 5.025, pred (9, 5) range √106 ≈ 10.296 (outside), pred (6, 8) range
    ///   exactly 10 (inside, inclusive), scores 0.9 / 0.8 / 0.7.
    /// Full: (5, 0.5)–(5, 0) 0.5 m TP, (9, 5)–(9, 4) 1 m TP, (6, 8) nearest GT (9, 4) at 5 m → FP.
    ///   TP 2, FP 1, FN 0 → P 2/3, R 1.
    /// Inside 10 m: (9, 5) is dropped, so (9, 4) is FN; (6, 8) still FP. TP 1, FP 1, FN 1 → P ½, R ½.
    @Test func insideTenMetres() {
        var eval = DetectionEvaluation()
        eval.add(
            predictions: [
                EvalBox.pred(5, 0.5, score: 0.9), EvalBox.pred(9, 5, score: 0.8),
                EvalBox.pred(6, 8, score: 0.7),
            ],
            groundTruth: [EvalBox.gt(5, 0), EvalBox.gt(9, 4)]
        )
        let report = eval.report
        #expect(report.counts == MatchCounts(truePositives: 2, falsePositives: 1, falseNegatives: 0))
        #expect(abs(report.precision - 2.0 / 3.0) < Self.tolerance)
        #expect(report.recall == 1)
        #expect(report.countsInside10m == MatchCounts(truePositives: 1, falsePositives: 1, falseNegatives: 1))
        #expect(report.precision10m == 0.5)
        #expect(report.recall10m == 0.5)
        // Near matching only changes counts, not the medians: [0.5, 1.0] → 0.75.
        #expect(report.medianCentreError == 0.75)
    }

    /// Bottom height z − height/2 of the prediction, signed. z 0.5, h 1.5 → −0.25 (sinks);
    /// z 1.0, h 1.5 → +0.25 (floats); z 0.75, h 1.5 → 0. The GT's own z is irrelevant.
    @Test func contactErrorSign() {
        var sinking = DetectionEvaluation()
        sinking.add(predictions: [EvalBox.pred(10, 0, z: 0.5, height: 1.5)], groundTruth: [EvalBox.gt(10, 0)])
        #expect(sinking.report.contactError == -0.25)

        var floating = DetectionEvaluation()
        floating.add(predictions: [EvalBox.pred(10, 0, z: 1.0, height: 1.5)], groundTruth: [EvalBox.gt(10, 0)])
        #expect(floating.report.contactError == 0.25)

        // Median of [−0.25, 0, +0.25, −0.5] → sorted [−0.5, −0.25, 0, 0.25] → (−0.25 + 0)/2 = −0.125.
        // An FP with z = −5 does not count.
        var mixed = DetectionEvaluation()
        for (z, h) in [(0.5, 1.5), (0.75, 1.5), (1.0, 1.5), (0.5, 2.0)] {
            mixed.add(predictions: [EvalBox.pred(10, 0, z: z, height: h)], groundTruth: [EvalBox.gt(10, 0)])
        }
        mixed.add(predictions: [EvalBox.pred(10, 0, z: -5, height: 1)], groundTruth: [])
        #expect(mixed.report.contactError == -0.125)
    }

    /// No frames, and frames with nothing in them: counts 0, rates 0 (0/0 defined as 0), medians nil.
    @Test func emptyFrames() {
        var eval = DetectionEvaluation()
        let none = eval.report
        #expect(none.frames == 0)
        #expect(none.counts == MatchCounts())
        #expect(none.precision == 0 && none.recall == 0 && none.f1 == 0)
        #expect(none.precision10m == 0 && none.recall10m == 0)
        #expect(none.medianCentreError == nil)
        #expect(none.medianYawErrorDegrees == nil)
        #expect(none.contactError == nil)

        for _ in 0..<3 { eval.add(predictions: [], groundTruth: []) }
        let empty = eval.report
        #expect(empty.frames == 3)
        #expect(empty.counts == MatchCounts())
        #expect(empty.medianCentreError == nil)
    }

    /// 0/0 conventions of `MatchCounts`: only FPs → P 0, R 0 (no GT), F1 0; only FNs → P 0, R 0.
    @Test func zeroDenominatorsAreZero() {
        let onlyFP = MatchCounts(truePositives: 0, falsePositives: 3, falseNegatives: 0)
        #expect(onlyFP.precision == 0 && onlyFP.recall == 0 && onlyFP.f1 == 0)
        let onlyFN = MatchCounts(truePositives: 0, falsePositives: 0, falseNegatives: 2)
        #expect(onlyFN.precision == 0 && onlyFN.recall == 0 && onlyFN.f1 == 0)
        let perfect = MatchCounts(truePositives: 5)
        #expect(perfect.precision == 1 && perfect.recall == 1 && perfect.f1 == 1)
    }

    /// Frame 1: pred (10, 0) on GT (10, 0.5) → TP; pred (30, 0) alone → FP.
    /// Frame 2: no predictions, GTs (30, 0) and (20, 5) → 2 FN. (The frame-1 FP at (30, 0) must not
    ///          reach across frames to the frame-2 GT at (30, 0).)
    /// Frame 3: preds (15, 1), (25, −1) on GTs (15, 0), (25, 0) → 2 TP.
    /// Frame 4: empty.
    /// Totals: TP 3, FP 1, FN 2, frames 4 → P 3/4 = 0.75, R 3/5 = 0.6,
    /// F1 = 2·0.75·0.6/(0.75 + 0.6) = 0.9/1.35 = 2/3. Centre errors [0.5, 1, 1] → median 1.
    @Test func accumulatesOverFrames() {
        var eval = DetectionEvaluation()
        let first = eval.add(
            predictions: [EvalBox.pred(10, 0), EvalBox.pred(30, 0, score: 0.8)],
            groundTruth: [EvalBox.gt(10, 0.5)])
        #expect(first.counts == MatchCounts(truePositives: 1, falsePositives: 1, falseNegatives: 0))
        eval.add(predictions: [], groundTruth: [EvalBox.gt(30, 0), EvalBox.gt(20, 5)])
        eval.add(
            predictions: [EvalBox.pred(15, 1), EvalBox.pred(25, -1)],
            groundTruth: [EvalBox.gt(15, 0), EvalBox.gt(25, 0)])
        eval.add(predictions: [], groundTruth: [])

        let report = eval.report
        #expect(report.frames == 4)
        #expect(report.counts == MatchCounts(truePositives: 3, falsePositives: 1, falseNegatives: 2))
        #expect(report.precision == 0.75)
        #expect(report.recall == 0.6)
        #expect(abs(report.f1 - 2.0 / 3.0) < Self.tolerance)
        #expect(report.medianCentreError == 1)
        // Nothing is inside 10 m except frame 1's pair: pred (10, 0) range 10 (kept), GT (10, 0.5)
        // range ≈ 10.012 (dropped) → near TP 0, FP 1, FN 0.
        #expect(report.countsInside10m == MatchCounts(truePositives: 0, falsePositives: 1, falseNegatives: 0))
    }

    /// The evaluation applies its matcher's threshold: at 0.5 the 0.55 prediction counts, at the
    /// default 0.60 it does not.
    @Test func usesMatcherSettings() {
        var loose = DetectionEvaluation(matcher: DetectionMatcher(scoreThreshold: 0.5))
        var strict = DetectionEvaluation()
        loose.add(predictions: [EvalBox.pred(10, 0, score: 0.55)], groundTruth: [EvalBox.gt(10, 0)])
        strict.add(predictions: [EvalBox.pred(10, 0, score: 0.55)], groundTruth: [EvalBox.gt(10, 0)])
        #expect(loose.report.counts.truePositives == 1)
        #expect(strict.report.counts == MatchCounts(truePositives: 0, falsePositives: 0, falseNegatives: 1))
    }
}
