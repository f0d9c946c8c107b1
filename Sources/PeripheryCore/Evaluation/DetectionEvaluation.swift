/// Accumulates detection results over frames and reports the seed's key-results figures.
///
/// Each frame is matched twice with the same rule (`DetectionMatcher`): once as configured, and
/// once with both sides also restricted to `nearRange` for the "inside 10 m" figures. Counts are
/// summed over frames; the medians are taken over all true-positive pairs of the full match.
public struct DetectionEvaluation: Sendable {
    /// The range, metres, of the "inside 10 m" figures (inclusive).
    public static let nearRange = 10.0

    /// The rule each frame is matched by.
    public let matcher: DetectionMatcher
    /// Frames added so far (empty frames included).
    public private(set) var frames = 0

    private var counts = MatchCounts()
    private var nearCounts = MatchCounts()
    private var centreErrors: [Double] = []
    private var yawErrorsDegrees: [Double] = []
    private var contactHeights: [Double] = []

    /// Creates an empty evaluation; the default matcher is the project's operating point.
    public init(matcher: DetectionMatcher = DetectionMatcher()) {
        self.matcher = matcher
    }

    /// Matches one frame and adds it to the totals; returns the frame's full match.
    @discardableResult
    public mutating func add(predictions: [Detection], groundTruth: [GroundTruthBox]) -> MatchOutcome {
        add(predictions: predictions, truth: GroundTruth(vehicles: groundTruth))
    }

    /// Adds one frame with don't-care boxes and returns its matches.
    @discardableResult
    public mutating func add(predictions: [Detection], truth: GroundTruth) -> MatchOutcome {
        let frame = matcher.match(predictions: predictions, truth: truth)
        var near = matcher
        near.maxRange = min(matcher.maxRange ?? Self.nearRange, Self.nearRange)
        frames += 1
        counts += frame.counts
        nearCounts += near.match(predictions: predictions, truth: truth).counts
        for pair in frame.pairs {
            centreErrors.append(pair.centreDistance)
            yawErrorsDegrees.append(pair.yawErrorDegrees)
            contactHeights.append(pair.contactHeight)
        }
        return frame
    }

    /// The figures so far.
    public var report: DetectionReport {
        DetectionReport(
            frames: frames,
            counts: counts,
            countsInside10m: nearCounts,
            medianCentreError: Self.median(centreErrors),
            medianYawErrorDegrees: Self.median(yawErrorsDegrees),
            contactError: Self.median(contactHeights)
        )
    }
}
