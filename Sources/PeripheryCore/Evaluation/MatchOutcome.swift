/// The outcome of matching one frame: true-positive pairs and what stayed unmatched.
public struct MatchOutcome: Sendable, Hashable {
    /// Matched pairs, in the order they were made (descending prediction score).
    public var pairs: [MatchedPair]
    /// Predictions that passed the filters but matched nothing, in descending score.
    public var unmatchedPredictions: [Detection]
    /// Ground-truth boxes that passed the filters but were not taken, in input order.
    public var unmatchedGroundTruth: [GroundTruthBox]

    /// Creates an outcome from its parts.
    public init(pairs: [MatchedPair], unmatchedPredictions: [Detection], unmatchedGroundTruth: [GroundTruthBox]) {
        self.pairs = pairs
        self.unmatchedPredictions = unmatchedPredictions
        self.unmatchedGroundTruth = unmatchedGroundTruth
    }

    /// TP = pairs, FP = unmatched predictions, FN = unmatched ground truth.
    public var counts: MatchCounts {
        MatchCounts(
            truePositives: pairs.count,
            falsePositives: unmatchedPredictions.count,
            falseNegatives: unmatchedGroundTruth.count
        )
    }
}
