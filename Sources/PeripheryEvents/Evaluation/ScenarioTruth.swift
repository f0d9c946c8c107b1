import PeripheryCore

/// The truth of one scripted drive (`periphery synth --sequence --scenario`, its `truth.json` and
/// labels): which scenario it plays, which vehicle is its scripted lead, and per frame the true
/// in-path lead with its range, closing speed, time to collision and headway, by the definitions of
/// `docs/guides/events.md`.
public struct ScenarioTruth: Sendable, Hashable {
    /// The scripted scenarios; the raw values are the names `truth.json` writes.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// NHTSA's lead vehicle stopped test.
        case leadVehicleStopped = "lvs"
        /// NHTSA's lead vehicle decelerating test.
        case leadVehicleDecelerating = "lvd"
        /// NHTSA's lead vehicle moving test.
        case leadVehicleMoving = "lvm"
        /// A vehicle moving in from the adjacent lane.
        case cutIn = "cut-in"
        /// Following a lead at a short, steady headway.
        case following
        /// Traffic without a scripted conflict.
        case free

        /// The smallest true time to collision at which NHTSA's forward collision warning test
        /// (NCAP, 2013) requires the warning: 2.1 s (lead stopped), 2.4 s (lead decelerating), 2.0 s
        /// (lead moving); nil for the scenarios it does not test.
        public var requiredWarningTime: Double? {
            switch self {
            case .leadVehicleStopped: 2.1
            case .leadVehicleDecelerating: 2.4
            case .leadVehicleMoving: 2.0
            case .cutIn, .following, .free: nil
            }
        }
    }

    /// A scenario and the parameters it was written with (nil where it has no such thing).
    public struct Scenario: Sendable, Hashable, Codable {
        /// Which scenario.
        public var kind: Kind
        /// The ego's speed, m/s.
        public var egoSpeed: Double?
        /// The lead's speed at the start, m/s.
        public var leadSpeed: Double?
        /// The lead's range at the start, m.
        public var gap: Double?
        /// The lead's braking, m/s².
        public var leadDeceleration: Double?

        /// Creates a scenario.
        public init(kind: Kind, egoSpeed: Double? = nil, leadSpeed: Double? = nil, gap: Double? = nil, leadDeceleration: Double? = nil) {
            self.kind = kind
            self.egoSpeed = egoSpeed
            self.leadSpeed = leadSpeed
            self.gap = gap
            self.leadDeceleration = leadDeceleration
        }

        private enum CodingKeys: String, CodingKey {
            case kind = "name"
            case egoSpeed = "ego_speed_m_s"
            case leadSpeed = "lead_speed_m_s"
            case gap = "gap_m"
            case leadDeceleration = "lead_decel_m_s2"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            // Every key is written, absent parameters as null, so that every drive has the same shape.
            try container.encode(egoSpeed, forKey: .egoSpeed)
            try container.encode(leadSpeed, forKey: .leadSpeed)
            try container.encode(gap, forKey: .gap)
            try container.encode(leadDeceleration, forKey: .leadDeceleration)
        }
    }

    /// The true in-path lead at one frame.
    public struct Lead: Sendable, Hashable {
        /// The id its labels carry.
        public var id: Int
        /// Range from the ego's front bumper to its nearest point, m.
        public var range: Double
        /// Closing speed, m/s.
        public var closingSpeed: Double
        /// Closing acceleration, m/s².
        public var closingAcceleration: Double
        /// Time to collision, s; nil when the gap never closes.
        public var timeToCollision: Double?
        /// Time headway, s; nil when the ego is (nearly) stopped.
        public var headway: Double?

        /// Creates a true lead.
        public init(id: Int, range: Double, closingSpeed: Double, closingAcceleration: Double, timeToCollision: Double?, headway: Double?) {
            self.id = id
            self.range = range
            self.closingSpeed = closingSpeed
            self.closingAcceleration = closingAcceleration
            self.timeToCollision = timeToCollision
            self.headway = headway
        }
    }

    /// One frame's truth.
    public struct Frame: Sendable, Hashable {
        /// The frame's time, s: the drive's frame clock (`frames.csv`).
        public var time: Double
        /// The true in-path lead, nil when no vehicle is in the path.
        public var lead: Lead?
        /// The labelled boxes (vehicle frame) of the vehicles the evaluation matches tracks to, by
        /// id: the scripted lead's and the in-path lead's, where the frame's labels have them.
        public var vehicles: [Int: VehicleBox]

        /// Creates a frame's truth.
        public init(time: Double, lead: Lead?, vehicles: [Int: VehicleBox]) {
            self.time = time
            self.lead = lead
            self.vehicles = vehicles
        }
    }

    /// The scenario.
    public var scenario: Scenario
    /// The id the scripted lead's labels carry; nil for a drive without one (`free`).
    public var leadID: Int?
    /// The ego's front bumper ahead of the vehicle origin, m: where the truth's ranges start.
    public var egoFrontMetres: Double
    /// The drive's frame rate.
    public var framesPerSecond: Double
    /// Every frame, in time order.
    public var frames: [Frame]

    /// Creates a drive's truth.
    public init(scenario: Scenario, leadID: Int?, egoFrontMetres: Double, framesPerSecond: Double, frames: [Frame]) {
        self.scenario = scenario
        self.leadID = leadID
        self.egoFrontMetres = egoFrontMetres
        self.framesPerSecond = framesPerSecond
        self.frames = frames
    }
}
