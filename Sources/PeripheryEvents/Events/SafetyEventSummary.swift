/// The safety events of a run: the finished events, their counts and rates, and the worst figures.
public struct SafetyEventSummary: Sendable, Hashable {
    /// Every finished event, in the order they ended.
    public var events: [SafetyEvent]
    /// The run's duration the rates are per, seconds.
    public var durationSeconds: Double
    /// The worst (smallest) time to collision of the in-path lead, seconds: the smallest value it
    /// stayed at or under for `forwardCollision.confirmationFrames` consecutive frames on one lead
    /// while the ego was at least `forwardCollision.minimumEgoSpeed` fast, so that a single noisy
    /// frame does not make it. `nil` when there was none.
    public var minimumTimeToCollision: Double?
    /// The worst time headway to the in-path lead, seconds, by the same rule with
    /// `closeFollowing.minimumEgoSpeed`.
    public var minimumHeadway: Double?

    /// Creates a summary.
    public init(events: [SafetyEvent], durationSeconds: Double, minimumTimeToCollision: Double?, minimumHeadway: Double?) {
        self.events = events
        self.durationSeconds = durationSeconds
        self.minimumTimeToCollision = minimumTimeToCollision
        self.minimumHeadway = minimumHeadway
    }

    /// How many events of `type` there were.
    public func count(_ type: SafetyEventType) -> Int {
        events.reduce(0) { $0 + ($1.type == type ? 1 : 0) }
    }

    /// Events of `type` per hour of the run; `nil` for a run of no duration.
    public func eventsPerHour(_ type: SafetyEventType) -> Double? {
        perHour(count(type))
    }

    /// Events of every kind per hour of the run; `nil` for a run of no duration.
    public var eventsPerHour: Double? { perHour(events.count) }

    private func perHour(_ count: Int) -> Double? {
        durationSeconds > 0 && durationSeconds.isFinite ? Double(count) * 3600 / durationSeconds : nil
    }
}
