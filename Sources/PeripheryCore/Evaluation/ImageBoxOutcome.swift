/// The outcome of `ImageBoxMatcher` on one frame, as indices into its candidates and truths.
public struct ImageBoxOutcome: Sendable, Hashable {
    /// A true positive: a candidate, the truth it took and their IoU.
    public struct Pair: Sendable, Hashable {
        /// Index of the candidate.
        public var candidate: Int
        /// Index of the truth.
        public var truth: Int
        /// Their intersection over union.
        public var iou: Double

        /// Creates a pair.
        public init(candidate: Int, truth: Int, iou: Double) {
            self.candidate = candidate
            self.truth = truth
            self.iou = iou
        }
    }

    /// True positives, in the order they were made (descending score).
    public var pairs: [Pair] = []
    /// Candidates that matched nothing and count as false, in descending score.
    public var falsePositives: [Int] = []
    /// Candidates that count neither way (on a truth that does not count, or out of range).
    public var ignored: [Int] = []
    /// Counted truths that no candidate took, in input order.
    public var missed: [Int] = []

    /// Creates an empty outcome.
    public init() {}

    /// TP = pairs, FP = false positives, FN = misses.
    public var counts: MatchCounts {
        MatchCounts(truePositives: pairs.count, falsePositives: falsePositives.count, falseNegatives: missed.count)
    }
}
