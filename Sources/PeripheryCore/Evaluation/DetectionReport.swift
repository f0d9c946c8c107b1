/// The detection figures of `docs/guides/evaluation.md`: the seed's key-results table plus the contact error.
///
/// Rates whose denominator is zero are 0 (see `MatchCounts`); medians over no true positives are nil.
public struct DetectionReport: Sendable, Hashable {
    /// Frames evaluated.
    public var frames: Int
    /// TP / FP / FN summed over frames.
    public var counts: MatchCounts
    /// The same, with both sides restricted to `hypot(x, y) ≤ 10 m` and matched separately.
    public var countsInside10m: MatchCounts
    /// Median BEV centre distance over true-positive pairs, metres.
    public var medianCentreError: Double?
    /// Median |wrap(yaw_pred − yaw_gt)| over true-positive pairs, degrees in [0, 180].
    public var medianYawErrorDegrees: Double?
    /// Median predicted bottom height `z − height/2` over true-positive pairs, metres, signed
    /// (negative: boxes sink below the road).
    public var contactError: Double?

    /// Creates a report from its figures.
    public init(
        frames: Int, counts: MatchCounts, countsInside10m: MatchCounts,
        medianCentreError: Double?, medianYawErrorDegrees: Double?, contactError: Double?
    ) {
        self.frames = frames
        self.counts = counts
        self.countsInside10m = countsInside10m
        self.medianCentreError = medianCentreError
        self.medianYawErrorDegrees = medianYawErrorDegrees
        self.contactError = contactError
    }

    /// TP / (TP + FP) over all frames (0 with no predictions).
    public var precision: Double { counts.precision }
    /// TP / (TP + FN) over all frames (0 with no ground truth).
    public var recall: Double { counts.recall }
    /// 2PR / (P + R) (0 when both are 0).
    public var f1: Double { counts.f1 }
    /// Precision inside 10 m.
    public var precision10m: Double { countsInside10m.precision }
    /// Recall inside 10 m.
    public var recall10m: Double { countsInside10m.recall }
}
