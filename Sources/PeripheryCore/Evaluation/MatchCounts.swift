/// True-positive, false-positive and false-negative totals, with the rates derived from them.
///
/// Every ratio whose denominator is zero is defined as 0 (not NaN): no predictions gives
/// precision 0, no ground truth gives recall 0, and precision + recall = 0 gives F1 0.
public struct MatchCounts: Sendable, Hashable {
    /// Predictions matched to a ground-truth box.
    public var truePositives: Int
    /// Predictions left unmatched.
    public var falsePositives: Int
    /// Ground-truth boxes left unmatched.
    public var falseNegatives: Int

    /// Creates counts, all zero unless given.
    public init(truePositives: Int = 0, falsePositives: Int = 0, falseNegatives: Int = 0) {
        self.truePositives = truePositives
        self.falsePositives = falsePositives
        self.falseNegatives = falseNegatives
    }

    /// TP / (TP + FP), or 0 when there are no predictions.
    public var precision: Double { Self.ratio(truePositives, truePositives + falsePositives) }

    /// TP / (TP + FN), or 0 when there is no ground truth.
    public var recall: Double { Self.ratio(truePositives, truePositives + falseNegatives) }

    /// 2PR / (P + R), or 0 when P + R = 0.
    public var f1: Double {
        let p = precision, r = recall
        return p + r > 0 ? 2 * p * r / (p + r) : 0
    }

    /// Adds another set of counts to these.
    public static func += (lhs: inout MatchCounts, rhs: MatchCounts) {
        lhs.truePositives += rhs.truePositives
        lhs.falsePositives += rhs.falsePositives
        lhs.falseNegatives += rhs.falseNegatives
    }

    private static func ratio(_ numerator: Int, _ denominator: Int) -> Double {
        denominator > 0 ? Double(numerator) / Double(denominator) : 0
    }
}
