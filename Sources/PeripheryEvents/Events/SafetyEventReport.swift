/// One event's line at one frame: what it is, where it is in its life and the figures of its
/// vehicle at that frame.
///
/// Its `Codable` form is the JSON that outputs write, with exactly the keys `type`, `phase`,
/// `track`, `ttc_s`, `headway_s` and `range_m`; a figure that is unknown at the frame is `null`.
public struct SafetyEventReport: Sendable, Hashable, Codable {
    /// The kind of event.
    public var type: SafetyEventType
    /// Start, update or end.
    public var phase: SafetyEventPhase
    /// The id of the track the event is about.
    public var track: Int
    /// That vehicle's time to collision at this frame, seconds.
    public var timeToCollision: Double?
    /// Its time headway at this frame, seconds.
    public var headway: Double?
    /// Its range from the ego's bumper at this frame, metres; `nil` when the track is gone.
    public var range: Double?

    /// Creates a report.
    public init(
        type: SafetyEventType, phase: SafetyEventPhase, track: Int, timeToCollision: Double?, headway: Double?, range: Double?
    ) {
        self.type = type
        self.phase = phase
        self.track = track
        self.timeToCollision = timeToCollision
        self.headway = headway
        self.range = range
    }

    private enum CodingKeys: String, CodingKey {
        case type, phase, track
        case timeToCollision = "ttc_s"
        case headway = "headway_s"
        case range = "range_m"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(SafetyEventType.self, forKey: .type)
        phase = try container.decode(SafetyEventPhase.self, forKey: .phase)
        track = try container.decode(Int.self, forKey: .track)
        timeToCollision = try container.decodeIfPresent(Double.self, forKey: .timeToCollision)
        headway = try container.decodeIfPresent(Double.self, forKey: .headway)
        range = try container.decodeIfPresent(Double.self, forKey: .range)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(phase, forKey: .phase)
        try container.encode(track, forKey: .track)
        // Every key is written, unknown figures as null, so that a line always has the same shape.
        try container.encode(timeToCollision, forKey: .timeToCollision)
        try container.encode(headway, forKey: .headway)
        try container.encode(range, forKey: .range)
    }
}
