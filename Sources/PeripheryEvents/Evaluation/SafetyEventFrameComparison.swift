/// One frame of an evaluated drive: our in-path lead beside the true one, and the frame's
/// forward-collision reports (`periphery eval-events --frames`), to see where a figure goes wrong.
///
/// Its `Codable` form has the keys `drive`, `time_s`, `lead`, `true_lead`, `is_true_lead` and
/// `forward_collision`; an unknown figure is `null`.
public struct SafetyEventFrameComparison: Sendable, Hashable, Codable {
    /// Our lead's figures.
    public struct Lead: Sendable, Hashable, Codable {
        /// Its track id.
        public var track: Int
        /// Range from the bumper, m.
        public var range: Double
        /// Closing speed, m/s.
        public var closingSpeed: Double?
        /// Closing acceleration, m/s².
        public var closingAcceleration: Double?
        /// Time to collision, s.
        public var timeToCollision: Double?
        /// Time headway, s.
        public var headway: Double?

        /// Our lead's figures of `measurement`.
        public init(_ measurement: LeadMeasurement) {
            track = measurement.track
            range = measurement.range
            closingSpeed = measurement.closing?.speed
            closingAcceleration = measurement.closing?.acceleration
            timeToCollision = measurement.timeToCollision
            headway = measurement.headway
        }

        private enum CodingKeys: String, CodingKey {
            case track, range = "range_m", closingSpeed = "closing_speed_m_s", closingAcceleration = "closing_acceleration_m_s2"
            case timeToCollision = "ttc_s", headway = "headway_s"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(track, forKey: .track)
            try c.encode(range, forKey: .range)
            try c.encode(closingSpeed, forKey: .closingSpeed)
            try c.encode(closingAcceleration, forKey: .closingAcceleration)
            try c.encode(timeToCollision, forKey: .timeToCollision)
            try c.encode(headway, forKey: .headway)
        }
    }

    /// The true lead's figures.
    public struct TrueLead: Sendable, Hashable, Codable {
        /// Its id in the labels.
        public var id: Int
        /// Range from the bumper, m.
        public var range: Double
        /// Closing speed, m/s.
        public var closingSpeed: Double
        /// Closing acceleration, m/s².
        public var closingAcceleration: Double
        /// Time to collision, s.
        public var timeToCollision: Double?
        /// Time headway, s.
        public var headway: Double?

        /// The figures of `lead`.
        public init(_ lead: ScenarioTruth.Lead) {
            id = lead.id
            range = lead.range
            closingSpeed = lead.closingSpeed
            closingAcceleration = lead.closingAcceleration
            timeToCollision = lead.timeToCollision
            headway = lead.headway
        }

        private enum CodingKeys: String, CodingKey {
            case id, range = "range_m", closingSpeed = "closing_speed_m_s", closingAcceleration = "closing_acceleration_m_s2"
            case timeToCollision = "ttc_s", headway = "headway_s"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(range, forKey: .range)
            try c.encode(closingSpeed, forKey: .closingSpeed)
            try c.encode(closingAcceleration, forKey: .closingAcceleration)
            try c.encode(timeToCollision, forKey: .timeToCollision)
            try c.encode(headway, forKey: .headway)
        }
    }

    /// The drive.
    public var drive: String
    /// The frame's time, s.
    public var time: Double
    /// Our in-path lead.
    public var lead: Lead?
    /// The true in-path lead.
    public var trueLead: TrueLead?
    /// Whether our lead is the true lead (its track's box matches the true lead's label).
    public var isTrueLead: Bool
    /// The frame's forward-collision reports.
    public var forwardCollision: [SafetyEventReport]

    /// Creates a frame's comparison.
    public init(drive: String, time: Double, lead: Lead?, trueLead: TrueLead?, isTrueLead: Bool, forwardCollision: [SafetyEventReport]) {
        self.drive = drive
        self.time = time
        self.lead = lead
        self.trueLead = trueLead
        self.isTrueLead = isTrueLead
        self.forwardCollision = forwardCollision
    }

    private enum CodingKeys: String, CodingKey {
        case drive, time = "time_s", lead, trueLead = "true_lead", isTrueLead = "is_true_lead", forwardCollision = "forward_collision"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(drive, forKey: .drive)
        try c.encode(time, forKey: .time)
        try c.encode(lead, forKey: .lead)
        try c.encode(trueLead, forKey: .trueLead)
        try c.encode(isTrueLead, forKey: .isTrueLead)
        try c.encode(forwardCollision, forKey: .forwardCollision)
    }
}
