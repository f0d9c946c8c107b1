import Testing

@testable import PeripheryCore

/// The real-frame set's rule (`ImageBoxMatcher`), on rectangles whose overlaps are worked by hand.
struct ImageBoxMatcherTests {
    let matcher = ImageBoxMatcher()

    static func box(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> SIMD4<Double> { SIMD4(x0, y0, x1, y1) }

    @Test func defaults() {
        #expect(matcher.iouThreshold == 0.4)
        #expect(matcher.scoreThreshold == 0.60)
    }

    /// [0, 0, 10, 10] and [5, 0, 15, 10]: intersection 5 × 10 = 50, union 100 + 100 − 50 = 150, IoU 1/3.
    /// [0, 0, 10, 10] and [0, 0, 10, 5]: 50 / 100 = 1/2. Disjoint: 0; touching edges: 0; empty: 0.
    @Test func iouWorkedByHand() {
        #expect(abs(ImageBoxMatcher.iou(Self.box(0, 0, 10, 10), Self.box(5, 0, 15, 10)) - 1.0 / 3.0) < 1e-15)
        #expect(ImageBoxMatcher.iou(Self.box(0, 0, 10, 10), Self.box(0, 0, 10, 5)) == 0.5)
        #expect(ImageBoxMatcher.iou(Self.box(0, 0, 10, 10), Self.box(20, 20, 30, 30)) == 0)
        #expect(ImageBoxMatcher.iou(Self.box(0, 0, 10, 10), Self.box(10, 0, 20, 10)) == 0)
        #expect(ImageBoxMatcher.iou(Self.box(0, 0, 0, 0), Self.box(0, 0, 0, 0)) == 0)
    }

    /// Truth T = [0, 0, 100, 100]. Candidate P1 = [0, 0, 100, 50] (IoU 0.5, score 0.7) and P2 = [0, 0,
    /// 100, 40] (IoU 0.4, exactly the threshold, score 0.9). P2 scores higher, so it takes T although
    /// P1 overlaps more; P1 is then a duplicate: a false positive. P3 = [0, 0, 100, 39] (IoU 0.39)
    /// alone would be false: below the threshold.
    @Test func higherScoreTakesTheTruthFirstAndTheThresholdIsInclusive() {
        let truth = [ImageBoxTruth(rectangle: Self.box(0, 0, 100, 100), counts: true)]
        let p1 = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 50), score: 0.7)
        let p2 = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 40), score: 0.9)
        let outcome = matcher.match(candidates: [p1, p2], truth: truth)
        #expect(outcome.pairs == [ImageBoxOutcome.Pair(candidate: 1, truth: 0, iou: 0.4)])
        #expect(outcome.falsePositives == [0])
        #expect(outcome.counts == MatchCounts(truePositives: 1, falsePositives: 1, falseNegatives: 0))

        let p3 = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 39), score: 0.9)
        let alone = matcher.match(candidates: [p3], truth: truth)
        #expect(alone.counts == MatchCounts(truePositives: 0, falsePositives: 1, falseNegatives: 1))
        #expect(alone.missed == [0])
    }

    /// Two neighbours in a queue, A = [0, 0, 100, 100] and B = [80, 0, 180, 100]. A candidate at
    /// [60, 0, 160, 100] overlaps A by 40 (IoU 4000 / 16000 = 0.25) and B by 80 (8000 / 12000 = 2/3):
    /// it takes B, the larger IoU, though A is listed first; A is missed.
    @Test func aCandidateTakesTheTruthOfLargestIoU() {
        let truth = [
            ImageBoxTruth(rectangle: Self.box(0, 0, 100, 100), counts: true), ImageBoxTruth(rectangle: Self.box(80, 0, 180, 100), counts: true),
        ]
        let outcome = matcher.match(candidates: [ImageBoxCandidate(rectangle: Self.box(60, 0, 160, 100), score: 0.8)], truth: truth)
        #expect(outcome.pairs.map(\.truth) == [1])
        #expect(abs((outcome.pairs.first?.iou ?? 0) - 2.0 / 3.0) < 1e-15)
        #expect(outcome.missed == [0])
    }

    /// A truth that does not count (don't care, beyond 40 m, out of view) absorbs every candidate
    /// that reaches the threshold on it and is never a miss; one below the threshold stays false. A
    /// counted truth under the same candidate is preferred to the one that does not count.
    @Test func truthsThatDoNotCountAbsorbCandidates() {
        let ignoredTruth = ImageBoxTruth(rectangle: Self.box(0, 0, 100, 100), counts: false)
        let onIt = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 50), score: 0.9) // IoU 0.5
        let twice = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 60), score: 0.8) // IoU 0.6
        let beside = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 30), score: 0.7) // IoU 0.3
        let outcome = matcher.match(candidates: [onIt, twice, beside], truth: [ignoredTruth])
        #expect(outcome.ignored == [0, 1])
        #expect(outcome.falsePositives == [2])
        #expect(outcome.missed.isEmpty)

        let counted = ImageBoxTruth(rectangle: Self.box(0, 0, 100, 50), counts: true) // the candidate's own box: IoU 1
        let both = matcher.match(candidates: [onIt], truth: [ignoredTruth, counted])
        #expect(both.pairs.map(\.truth) == [1])
        #expect(both.ignored.isEmpty)
    }

    /// Below the score threshold a candidate is not looked at; out of range it is left out when it
    /// matches nothing, but still a true positive when it matches a counted truth.
    @Test func scoreThresholdAndRange() {
        let truth = [ImageBoxTruth(rectangle: Self.box(0, 0, 100, 100), counts: true)]
        let weak = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 100), score: 0.59)
        #expect(matcher.match(candidates: [weak], truth: truth).counts == MatchCounts(truePositives: 0, falsePositives: 0, falseNegatives: 1))
        let far = ImageBoxCandidate(rectangle: Self.box(500, 0, 600, 100), score: 0.9, inRange: false)
        let farHit = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 100), score: 0.8, inRange: false)
        let outcome = matcher.match(candidates: [far, farHit], truth: truth)
        #expect(outcome.ignored == [0])
        #expect(outcome.pairs.map(\.candidate) == [1])
        #expect(outcome.counts == MatchCounts(truePositives: 1, falsePositives: 0, falseNegatives: 0))
    }

    /// Equal scores keep input order: the first listed takes the truth, the second is a duplicate.
    @Test func equalScoresKeepInputOrder() {
        let truth = [ImageBoxTruth(rectangle: Self.box(0, 0, 100, 100), counts: true)]
        let a = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 60), score: 0.8)
        let b = ImageBoxCandidate(rectangle: Self.box(0, 0, 100, 90), score: 0.8)
        let outcome = matcher.match(candidates: [a, b], truth: truth)
        #expect(outcome.pairs.map(\.candidate) == [0])
        #expect(outcome.falsePositives == [1])
    }

    /// The report adds frames per group and overall: 2 frames of A (1/1/0 and 0/2/1) and 1 of B (1/0/0).
    @Test func reportGroupsFramesByCamera() {
        var report = ImageBoxReport()
        var first = ImageBoxOutcome(), second = ImageBoxOutcome(), third = ImageBoxOutcome()
        first.pairs = [ImageBoxOutcome.Pair(candidate: 0, truth: 0, iou: 0.5)]
        first.falsePositives = [1]
        second.falsePositives = [0, 1]
        second.missed = [0]
        third.pairs = [ImageBoxOutcome.Pair(candidate: 0, truth: 0, iou: 0.9)]
        report.add(first, group: "A")
        report.add(third, group: "B")
        report.add(second, group: "A")
        #expect(report.groups.map(\.name) == ["A", "B"])
        #expect(report.groups[0].counts == MatchCounts(truePositives: 1, falsePositives: 3, falseNegatives: 1))
        #expect(report.groups[0].frames == 2 && report.groups[0].labelled == 2 && report.groups[0].falsePerFrame == 1.5)
        #expect(report.overall.counts == MatchCounts(truePositives: 2, falsePositives: 3, falseNegatives: 1))
        #expect(report.overall.frames == 3)
    }
}
