/// Matches one frame's predictions to its ground truth by the project's rule (`docs/guides/evaluation.md`).
///
/// Both sides are first restricted to `region` (bounds inclusive), to the vehicle labels
/// {0, 1, 2} (pedestrians and unknown labels are ignored on both sides) and, when `maxRange` is
/// set, to `hypot(x, y) ≤ maxRange`; predictions must also score at least `scoreThreshold`.
/// Matching is class-agnostic and greedy: predictions in descending score (equal scores keep their
/// input order) each take the nearest still-unmatched ground-truth box whose BEV centre distance is
/// strictly below `matchDistance` (equal distances: the earlier box in input order). A prediction
/// left unmatched whose centre is closer than `matchDistance` to a don't-care box (`GroundTruth`)
/// is dropped: neither a true nor a false positive.
public struct DetectionMatcher: Sendable, Hashable {
    /// Keep a prediction whose score is at least this.
    public var scoreThreshold: Float
    /// Region outside which neither side counts.
    public var region: EvaluationRegion
    /// A pair matches only if its BEV centre distance is strictly below this, metres.
    public var matchDistance: Double
    /// When set, neither side counts beyond this range `hypot(x, y)` (inclusive), metres.
    public var maxRange: Double?

    /// The display threshold at which the seed's key results are reported.
    public static let displayThreshold: Float = 0.60

    /// Creates a matcher; defaults are the project's operating point (0.60, Safety40 region, 2.0 m,
    /// no range limit).
    public init(
        scoreThreshold: Float = DetectionMatcher.displayThreshold, region: EvaluationRegion = .safety40,
        matchDistance: Double = 2.0, maxRange: Double? = nil
    ) {
        self.scoreThreshold = scoreThreshold
        self.region = region
        self.matchDistance = matchDistance
        self.maxRange = maxRange
    }

    /// Whether a prediction takes part in matching.
    func includes(_ prediction: Detection) -> Bool {
        prediction.score >= scoreThreshold
            && includes(label: prediction.label, x: prediction.box.x, y: prediction.box.y)
    }

    /// Whether a ground-truth box takes part in matching.
    func includes(_ groundTruth: GroundTruthBox) -> Bool {
        includes(label: groundTruth.label, x: groundTruth.box.x, y: groundTruth.box.y)
    }

    /// Matches one frame whose don't-care boxes are `truth.dontCare`.
    public func match(predictions: [Detection], truth: GroundTruth) -> MatchOutcome {
        let outcome = match(predictions: predictions, groundTruth: truth.vehicles)
        guard !truth.dontCare.isEmpty else { return outcome }
        let kept = outcome.unmatchedPredictions.filter { prediction in
            !truth.dontCare.contains { label in
                let dx = prediction.box.x - label.box.x, dy = prediction.box.y - label.box.y
                return (dx * dx + dy * dy).squareRoot() < matchDistance
            }
        }
        return MatchOutcome(pairs: outcome.pairs, unmatchedPredictions: kept, unmatchedGroundTruth: outcome.unmatchedGroundTruth)
    }

    /// Matches one frame.
    public func match(predictions: [Detection], groundTruth: [GroundTruthBox]) -> MatchOutcome {
        // Descending score; the input index breaks ties so that the order is stable by construction.
        let ordered = predictions.enumerated()
            .filter { includes($0.element) }
            .sorted { $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset }
            .map(\.element)
        let targets = groundTruth.filter { includes($0) }
        var taken = [Bool](repeating: false, count: targets.count)
        var pairs: [MatchedPair] = []
        var unmatched: [Detection] = []

        for prediction in ordered {
            var best: Int?
            var bestDistance = matchDistance
            for (index, target) in targets.enumerated() where !taken[index] {
                let dx = prediction.box.x - target.box.x, dy = prediction.box.y - target.box.y
                let distance = (dx * dx + dy * dy).squareRoot()
                if distance < bestDistance {
                    best = index
                    bestDistance = distance
                }
            }
            if let best {
                taken[best] = true
                pairs.append(MatchedPair(prediction: prediction, groundTruth: targets[best]))
            } else {
                unmatched.append(prediction)
            }
        }
        let missed = zip(targets, taken).filter { !$0.1 }.map(\.0)
        return MatchOutcome(pairs: pairs, unmatchedPredictions: unmatched, unmatchedGroundTruth: missed)
    }

    private func includes(label: Int, x: Double, y: Double) -> Bool {
        guard VehicleClass.vehicleLabels.contains(label), region.contains(x: x, y: y) else { return false }
        guard let maxRange else { return true }
        return (x * x + y * y).squareRoot() <= maxRange
    }
}
