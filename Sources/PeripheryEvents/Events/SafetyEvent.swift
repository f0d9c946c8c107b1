/// A finished safety event: its kind, its vehicle, when it held and its peak figures.
///
/// Its `Codable` form has the keys `type`, `track`, `onset_s`, `start_s`, `end_s`, `min_ttc_s`,
/// `min_headway_s` and `min_range_m`; an unknown figure is `null`.
public struct SafetyEvent: Sendable, Hashable, Codable {
    /// The kind of event.
    public var type: SafetyEventType
    /// The id of the track it was about.
    public var track: Int
    /// When its condition first held: the first of its confirmation frames, or the beginning of
    /// the time it had to hold (seconds, the frames' clock).
    public var onset: Double
    /// The frame at which it started (its `start` report).
    public var start: Double
    /// The frame at which it ended (its `end` report).
    public var end: Double
    /// The smallest time to collision of its vehicle from onset to end, seconds.
    public var minimumTimeToCollision: Double?
    /// The smallest time headway, seconds.
    public var minimumHeadway: Double?
    /// The smallest range from the ego's bumper, metres.
    public var minimumRange: Double?

    /// Creates a finished event.
    public init(
        type: SafetyEventType, track: Int, onset: Double, start: Double, end: Double, minimumTimeToCollision: Double?,
        minimumHeadway: Double?, minimumRange: Double?
    ) {
        self.type = type
        self.track = track
        self.onset = onset
        self.start = start
        self.end = end
        self.minimumTimeToCollision = minimumTimeToCollision
        self.minimumHeadway = minimumHeadway
        self.minimumRange = minimumRange
    }

    /// How long its condition held, from onset to end, seconds.
    public var duration: Double { end - onset }

    private enum CodingKeys: String, CodingKey {
        case type, track
        case onset = "onset_s"
        case start = "start_s"
        case end = "end_s"
        case minimumTimeToCollision = "min_ttc_s"
        case minimumHeadway = "min_headway_s"
        case minimumRange = "min_range_m"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(SafetyEventType.self, forKey: .type)
        track = try container.decode(Int.self, forKey: .track)
        onset = try container.decode(Double.self, forKey: .onset)
        start = try container.decode(Double.self, forKey: .start)
        end = try container.decode(Double.self, forKey: .end)
        minimumTimeToCollision = try container.decodeIfPresent(Double.self, forKey: .minimumTimeToCollision)
        minimumHeadway = try container.decodeIfPresent(Double.self, forKey: .minimumHeadway)
        minimumRange = try container.decodeIfPresent(Double.self, forKey: .minimumRange)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(track, forKey: .track)
        try container.encode(onset, forKey: .onset)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encode(minimumTimeToCollision, forKey: .minimumTimeToCollision)
        try container.encode(minimumHeadway, forKey: .minimumHeadway)
        try container.encode(minimumRange, forKey: .minimumRange)
    }
}
