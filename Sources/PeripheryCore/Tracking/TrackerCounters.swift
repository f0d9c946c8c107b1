/// Running totals of a `VehicleTracker` since its last reset (`docs/reference/tracker.md#82-inputs-and-outputs`).
public struct TrackerCounters: Sendable, Hashable, Codable {
    /// Tracks created.
    public var births = 0
    /// Track–detection pairs accepted.
    public var matches = 0
    /// Detections dropped for overlapping a nearer one of the same family.
    public var detectionSuppressed = 0
    /// Tracks dropped for overlapping a nearer one of the same family.
    public var trackSuppressed = 0
    /// The last id issued (ids start at 1, so this is also the number issued).
    public var idsIssued = 0

    /// Creates counters, all zero unless given.
    public init(
        births: Int = 0, matches: Int = 0, detectionSuppressed: Int = 0, trackSuppressed: Int = 0,
        idsIssued: Int = 0
    ) {
        self.births = births
        self.matches = matches
        self.detectionSuppressed = detectionSuppressed
        self.trackSuppressed = trackSuppressed
        self.idsIssued = idsIssued
    }

    /// Detections and tracks suppressed together.
    public var suppressed: Int { detectionSuppressed + trackSuppressed }
}
