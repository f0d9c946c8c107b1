import Testing

@testable import PeripheryCore

/// Per-frame matching rule of `docs/guides/evaluation.md` (filters, greedy nearest, strict 2.0 m gate).
struct EvaluationMatcherTests {
    let matcher = DetectionMatcher()

    @Test func defaults() {
        #expect(matcher.scoreThreshold == 0.60)
        #expect(matcher.region == .safety40)
        #expect(matcher.matchDistance == 2.0)
        #expect(matcher.maxRange == nil)
    }

    /// GT A (10, 0), GT B (13, 0). High (0.9) at (11.75, 0): A 1.75 m, B 1.25 m → takes B, the
    /// nearest. Low (0.7) at (12.5, 0): A 2.5 m (≥ 2), B 0.5 m but taken → FP; A → FN.
    /// (An optimal assignment would give 2 TP: High–A 1.75, Low–B 0.5. Greedy gives 1/1/1.)
    /// Low is listed first to show that score, not input order, decides.
    @Test func higherScoreStealsNearestGroundTruth() {
        let high = EvalBox.pred(11.75, 0, score: 0.9, candidate: 1)
        let low = EvalBox.pred(12.5, 0, score: 0.7, candidate: 2)
        let a = EvalBox.gt(10, 0), b = EvalBox.gt(13, 0)
        let frame = matcher.match(predictions: [low, high], groundTruth: [a, b])
        #expect(frame.counts == MatchCounts(truePositives: 1, falsePositives: 1, falseNegatives: 1))
        #expect(frame.pairs.map(\.prediction) == [high])
        #expect(frame.pairs.map(\.groundTruth) == [b])
        #expect(frame.pairs[0].centreDistance == 1.25)
        #expect(frame.unmatchedPredictions == [low])
        #expect(frame.unmatchedGroundTruth == [a])
    }

    /// Don't-care truth: a prediction 1.5 m from a don't-care box is dropped, one 2.0 m from it
    /// stays a false positive, a real box still takes its prediction first, and a missed don't-care
    /// box is no miss.
    @Test(arguments: [(1.5, 0), (2.0, 1)])
    func dontCareBoxesAbsorbNearbyPredictionsOnly(offset: Double, falsePositives: Int) {
        let real = EvalBox.gt(10, 0), ignored = EvalBox.gt(20, 5), unseen = EvalBox.gt(30, -5)
        let hit = EvalBox.pred(10.5, 0, score: 0.9), near = EvalBox.pred(20, 5 - offset, score: 0.8)
        let truth = GroundTruth(vehicles: [real], dontCare: [ignored, unseen])
        let frame = matcher.match(predictions: [hit, near], truth: truth)
        #expect(frame.counts == MatchCounts(truePositives: 1, falsePositives: falsePositives, falseNegatives: 0))
        // A prediction near both a real box and a don't-care box matches the real one.
        let both = matcher.match(predictions: [EvalBox.pred(10, 0.5)], truth: GroundTruth(vehicles: [real], dontCare: [EvalBox.gt(10, 1)]))
        #expect(both.counts == MatchCounts(truePositives: 1, falsePositives: 0, falseNegatives: 0))
    }

    /// Nearest, not first listed: GT at 1.5 m listed before GT at 0.5 m → takes the 0.5 m one.
    @Test func takesNearestNotFirstListed() {
        let p = EvalBox.pred(20, 0)
        let far = EvalBox.gt(20, 1.5), near = EvalBox.gt(20, -0.5)
        let frame = matcher.match(predictions: [p], groundTruth: [far, near])
        #expect(frame.pairs.map(\.groundTruth) == [near])
        #expect(frame.unmatchedGroundTruth == [far])
    }

    /// (10, 0) vs (12, 0): distance exactly 2.0 → not < 2.0 → FP + FN. The next double below 12
    /// (distance 2 − 2⁻⁴⁹) matches.
    @Test func exactlyTwoMetresIsNotAMatch() {
        let along = matcher.match(predictions: [EvalBox.pred(10, 0)], groundTruth: [EvalBox.gt(12, 0)])
        #expect(along.counts == MatchCounts(truePositives: 0, falsePositives: 1, falseNegatives: 1))
        let across = matcher.match(predictions: [EvalBox.pred(10, 1)], groundTruth: [EvalBox.gt(10, -1)])
        #expect(across.counts == MatchCounts(truePositives: 0, falsePositives: 1, falseNegatives: 1))
        let inside = matcher.match(predictions: [EvalBox.pred(10, 0)], groundTruth: [EvalBox.gt(12.0.nextDown, 0)])
        #expect(inside.counts == MatchCounts(truePositives: 1, falsePositives: 0, falseNegatives: 0))
    }

    /// Label 3 is dropped from both sides; labels 0/1/2 match each other (class-agnostic).
    @Test func pedestriansIgnoredOnBothSides() {
        // Pedestrian on pedestrian: nothing counts at all.
        let both = matcher.match(predictions: [EvalBox.pred(10, 0, label: 3)], groundTruth: [EvalBox.gt(10, 0, label: 3)])
        #expect(both.counts == MatchCounts())
        // Pedestrian prediction on a car: the car is missed (FN), the prediction is not an FP.
        let predSide = matcher.match(predictions: [EvalBox.pred(10, 0, label: 3)], groundTruth: [EvalBox.gt(10, 0)])
        #expect(predSide.counts == MatchCounts(truePositives: 0, falsePositives: 0, falseNegatives: 1))
        // Car prediction on a pedestrian label: FP, and no FN for the pedestrian.
        let gtSide = matcher.match(predictions: [EvalBox.pred(10, 0)], groundTruth: [EvalBox.gt(10, 0, label: 3)])
        #expect(gtSide.counts == MatchCounts(truePositives: 0, falsePositives: 1, falseNegatives: 0))
        // A large vehicle prediction matches a two-wheeler label; an unknown label 7 is ignored.
        let mixed = matcher.match(
            predictions: [EvalBox.pred(10, 0, label: 1), EvalBox.pred(30, 0, label: 7)],
            groundTruth: [EvalBox.gt(10, 0.5, label: 2), EvalBox.gt(30, 0, label: 7)]
        )
        #expect(mixed.counts == MatchCounts(truePositives: 1, falsePositives: 0, falseNegatives: 0))
    }

    /// Corners (0, ±10) and (40, ±10) are inside; the next double beyond each bound is outside.
    @Test func regionEdgesInclusive() {
        let corners = [(0.0, -10.0), (0.0, 10.0), (40.0, -10.0), (40.0, 10.0)]
        let inside = matcher.match(
            predictions: corners.map { EvalBox.pred($0.0, $0.1) },
            groundTruth: corners.map { EvalBox.gt($0.0, $0.1) }
        )
        #expect(inside.counts == MatchCounts(truePositives: 4, falsePositives: 0, falseNegatives: 0))

        let beyond = [(0.0.nextDown, 0.0), (40.0.nextUp, 0.0), (20.0, 10.0.nextUp), (20.0, (-10.0).nextDown)]
        let outside = matcher.match(
            predictions: beyond.map { EvalBox.pred($0.0, $0.1) },
            groundTruth: beyond.map { EvalBox.gt($0.0, $0.1) }
        )
        #expect(outside.counts == MatchCounts())

        // GT just outside (40.5, 0), prediction inside 1 m away (39.5, 0): the GT does not exist
        // for evaluation, so the prediction is an FP. And the mirror case is an FN.
        let gtOut = matcher.match(predictions: [EvalBox.pred(39.5, 0)], groundTruth: [EvalBox.gt(40.5, 0)])
        #expect(gtOut.counts == MatchCounts(truePositives: 0, falsePositives: 1, falseNegatives: 0))
        let predOut = matcher.match(predictions: [EvalBox.pred(40.5, 0)], groundTruth: [EvalBox.gt(39.5, 0)])
        #expect(predOut.counts == MatchCounts(truePositives: 0, falsePositives: 0, falseNegatives: 1))
    }

    /// score ≥ 0.60 keeps exactly 0.60; the next Float below is dropped (not counted as FP).
    @Test func thresholdInclusive() {
        let gt = [EvalBox.gt(10, 0)]
        let at = matcher.match(predictions: [EvalBox.pred(10, 0, score: 0.60)], groundTruth: gt)
        #expect(at.counts == MatchCounts(truePositives: 1, falsePositives: 0, falseNegatives: 0))
        let below = matcher.match(predictions: [EvalBox.pred(10, 0, score: Float(0.60).nextDown)], groundTruth: gt)
        #expect(below.counts == MatchCounts(truePositives: 0, falsePositives: 0, falseNegatives: 1))
        // A lower custom threshold lets it back in.
        let loose = DetectionMatcher(scoreThreshold: 0.5)
            .match(predictions: [EvalBox.pred(10, 0, score: 0.55)], groundTruth: gt)
        #expect(loose.counts.truePositives == 1)
    }

    /// Two predictions at 0.8 compete for one GT at (10, 0): P1 at 0.5 m, P2 at 0.25 m. Equal
    /// scores keep input order, so whichever is listed first takes it, even though P2 is nearer.
    @Test func equalScoresKeepInputOrder() {
        let p1 = EvalBox.pred(10, 0.5, score: 0.8, candidate: 1)
        let p2 = EvalBox.pred(10, -0.25, score: 0.8, candidate: 2)
        let gt = [EvalBox.gt(10, 0)]
        let forward = matcher.match(predictions: [p1, p2], groundTruth: gt)
        #expect(forward.pairs.map(\.prediction.candidate) == [1])
        #expect(forward.pairs[0].centreDistance == 0.5)
        #expect(forward.unmatchedPredictions.map(\.candidate) == [2])
        let reversed = matcher.match(predictions: [p2, p1], groundTruth: gt)
        #expect(reversed.pairs.map(\.prediction.candidate) == [2])
        #expect(reversed.pairs[0].centreDistance == 0.25)
        #expect(reversed.unmatchedPredictions.map(\.candidate) == [1])
        // Many equal scores, far apart: pairs come out in input order.
        let many = (0..<6).map { EvalBox.pred(Double(5 + 5 * $0), 0, score: 0.75, candidate: 10 - $0) }
        let all = matcher.match(predictions: many, groundTruth: many.map { EvalBox.gt($0.box.x, $0.box.y) })
        #expect(all.pairs.map(\.prediction.candidate) == [10, 9, 8, 7, 6, 5])
    }

    /// Equal distances to two GTs: the earlier-listed GT is taken.
    @Test func equalDistancesTakeEarlierGroundTruth() {
        let left = EvalBox.gt(10, 1), right = EvalBox.gt(10, -1)
        let frame = matcher.match(predictions: [EvalBox.pred(10, 0)], groundTruth: [left, right])
        #expect(frame.pairs.map(\.groundTruth) == [left])
    }

    /// maxRange keeps hypot(x, y) ≤ r on both sides: (6, 8) is exactly 10 m and kept.
    @Test func maxRangeInclusive() {
        let near = DetectionMatcher(maxRange: 10)
        #expect(near.includes(EvalBox.pred(6, 8)))
        #expect(near.includes(EvalBox.gt(6, 8)))
        #expect(!near.includes(EvalBox.pred(6, 8.0.nextUp)))
        #expect(!near.includes(EvalBox.gt(10, 0.5)))
    }

    @Test func emptyInputs() {
        let frame = matcher.match(predictions: [], groundTruth: [])
        #expect(frame.pairs.isEmpty && frame.unmatchedPredictions.isEmpty && frame.unmatchedGroundTruth.isEmpty)
        #expect(frame.counts == MatchCounts())
        #expect(matcher.match(predictions: [], groundTruth: [EvalBox.gt(5, 0)]).counts.falseNegatives == 1)
        #expect(matcher.match(predictions: [EvalBox.pred(5, 0)], groundTruth: []).counts.falsePositives == 1)
    }
}
