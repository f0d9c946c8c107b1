/// Matches one frame's detections to hand-drawn image boxes by their overlap in the picture: the
/// rule of the real-frame set (`docs/guides/evaluation.md#real-frames`).
///
/// Candidates scoring at least `scoreThreshold` are taken in descending score (equal scores keep
/// their input order). Each takes the still-unmatched counted truth with the largest IoU, if that
/// IoU is at least `iouThreshold` (equal IoUs: the earlier truth): a true positive. A candidate
/// that takes none is left out, neither true nor false, when its IoU with a truth that does not
/// count (don't care, beyond the range, out of the detector's view) reaches the threshold, or when
/// the candidate itself is outside the evaluated range; otherwise it is a false positive. Counted
/// truths left unmatched are misses. A truth that does not count absorbs any number of candidates.
/// Matching is class-agnostic, as `DetectionMatcher` is.
public struct ImageBoxMatcher: Sendable, Hashable {
    /// The smallest IoU at which a candidate and a truth match.
    public var iouThreshold: Double
    /// Keep a candidate whose score is at least this.
    public var scoreThreshold: Float

    /// The IoU of the project's real-frame figures: a projected 3-D box against a hand-drawn one
    /// still overlaps this much with a 30 % range error, and two neighbours in a queue do not.
    public static let defaultIoU = 0.4

    /// Creates a matcher; the defaults are the real-frame figures' (IoU 0.4, the display threshold).
    public init(iouThreshold: Double = ImageBoxMatcher.defaultIoU, scoreThreshold: Float = DetectionMatcher.displayThreshold) {
        self.iouThreshold = iouThreshold
        self.scoreThreshold = scoreThreshold
    }

    /// Matches one frame.
    public func match(candidates: [ImageBoxCandidate], truth: [ImageBoxTruth]) -> ImageBoxOutcome {
        let ordered = candidates.indices
            .filter { candidates[$0].score >= scoreThreshold }
            .sorted { candidates[$0].score != candidates[$1].score ? candidates[$0].score > candidates[$1].score : $0 < $1 }
        var taken = [Bool](repeating: false, count: truth.count)
        var outcome = ImageBoxOutcome()
        for index in ordered {
            let rectangle = candidates[index].rectangle
            var best: Int?
            var bestIoU = iouThreshold
            for (t, label) in truth.enumerated() where label.counts && !taken[t] {
                let iou = Self.iou(rectangle, label.rectangle)
                if iou >= bestIoU && (best == nil || iou > bestIoU) {
                    best = t
                    bestIoU = iou
                }
            }
            if let best {
                taken[best] = true
                outcome.pairs.append(ImageBoxOutcome.Pair(candidate: index, truth: best, iou: bestIoU))
            } else if !candidates[index].inRange
                || truth.contains(where: { !$0.counts && Self.iou(rectangle, $0.rectangle) >= iouThreshold })
            {
                outcome.ignored.append(index)
            } else {
                outcome.falsePositives.append(index)
            }
        }
        outcome.missed = truth.indices.filter { truth[$0].counts && !taken[$0] }
        return outcome
    }

    /// Intersection over union of two rectangles (min x, min y, max x, max y); 0 when the union is empty.
    public static func iou(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Double {
        let intersection = max(0, min(a.z, b.z) - max(a.x, b.x)) * max(0, min(a.w, b.w) - max(a.y, b.y))
        let union = max(0, a.z - a.x) * max(0, a.w - a.y) + max(0, b.z - b.x) * max(0, b.w - b.y) - intersection
        return union > 0 ? intersection / union : 0
    }
}
