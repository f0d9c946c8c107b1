import Foundation

/// A scripted scenario of a synthetic drive: which test the lead vehicle plays, and its speeds,
/// gap and braking.
///
/// The lead-vehicle tests and their defaults are those of NHTSA's NCAP Forward Collision Warning
/// confirmation test (2013), on a straight road with the ego at constant speed in its lane; cut-in
/// and following are the project's own (`docs/guides/synthetic-world.md#scripted-scenarios`).
/// A parameter left out takes the scenario's default; one the scenario does not have is an error.
public struct SyntheticScenario: Sendable, Hashable {
    /// The scenarios, named as `periphery synth --scenario` names them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Lead vehicle stopped (NHTSA LVS): the lead stands in the ego's lane.
        case leadVehicleStopped = "lvs"
        /// Lead vehicle decelerating (NHTSA LVD): the lead drives ahead at the ego's speed, then brakes to a stop.
        case leadVehicleDecelerating = "lvd"
        /// Lead vehicle moving (NHTSA LVM): the lead drives slower than the ego in its lane.
        case leadVehicleMoving = "lvm"
        /// A slower vehicle moves from the adjacent lane into the ego's lane ahead.
        case cutIn = "cut-in"
        /// The lead drives at the ego's speed a short headway ahead for the whole drive.
        case following
        /// Today's traffic with nothing scripted: the drive of the seed without a scenario.
        case free

        /// The scenario of a name (`lvs`, `lvd`, `lvm`, `cut-in`, `following`, `free`).
        public init(name: String) throws(SyntheticScenarioError) {
            guard let kind = Kind(rawValue: name) else { throw .unknownScenario(name) }
            self = kind
        }

        /// The parameters this scenario takes.
        public var parameters: [Parameter] {
            switch self {
            case .leadVehicleStopped, .following: [.egoSpeed, .gap]
            case .leadVehicleDecelerating: [.egoSpeed, .leadSpeed, .gap, .leadDeceleration]
            case .leadVehicleMoving, .cutIn: [.egoSpeed, .leadSpeed, .gap]
            case .free: []
            }
        }
    }

    /// A parameter of a scenario, named as the command line names its option.
    public enum Parameter: String, Sendable, Hashable, CaseIterable {
        /// The ego's constant speed, m/s.
        case egoSpeed = "ego-speed"
        /// The lead's speed at the start, m/s.
        case leadSpeed = "lead-speed"
        /// The lead's range at the start (for cut-in, once it is in the ego's lane), metres.
        case gap
        /// The lead's braking, m/s².
        case leadDeceleration = "lead-decel"
    }

    /// Which scenario.
    public let kind: Kind
    /// The ego's constant speed, m/s; nil for `free`, whose drive draws its own.
    public let egoSpeed: Double?
    /// The scripted lead's speed at the start, m/s (0 for `lvs`, the ego's for `following`); nil for `free`.
    public let leadSpeed: Double?
    /// Range from the ego's front bumper to the lead's rear at the start (for `cut-in`, when it has
    /// finished moving in), metres; nil for `free`.
    public let gap: Double?
    /// The lead's braking from `leadBrakeOnset` to a stop, m/s² (`lvd` alone); nil otherwise.
    public let leadDeceleration: Double?

    /// 1 mph in m/s (exact).
    static let mph = 0.44704
    /// NHTSA's subject-vehicle speed, 45 mph.
    static let testSpeed = 45 * mph
    /// Standard gravity as the test's 0.3 g is usually converted (9.81 m/s²).
    static let g = 9.81
    /// Following headway of the `following` scenario, s: well under the 1–2 s that close-following
    /// rules use, so that the drive is a clear case.
    static let followingHeadway = 0.6
    /// `lvd`: steady following before the lead brakes, s, so that a tracker has the lead at a
    /// constant range first.
    static let leadBrakeOnset = 3.0
    /// `cut-in`: when the lead starts moving over, and how long it takes (a brisk lane change), s.
    static let laneChangeStart = 2.0
    static let laneChangeDuration = 3.0
    /// The range at which a scripted drive ends: the test has the ego steer away or stop, we stop.
    static let contactRange = 0.5

    /// A scenario with the given parameters, the scenario's defaults for those left out.
    ///
    /// Throws when a parameter is given that `kind` does not take, or lies outside its range:
    /// speeds 1–70 m/s for the ego and 0–70 m/s for the lead (2–70 m/s for a cut-in, which must
    /// move to change lanes), gaps 1–200 m, braking 0.1–12 m/s².
    public init(
        _ kind: Kind, egoSpeed: Double? = nil, leadSpeed: Double? = nil, gap: Double? = nil, leadDeceleration: Double? = nil
    ) throws(SyntheticScenarioError) {
        let given: [(Parameter, Double?)] = [(.egoSpeed, egoSpeed), (.leadSpeed, leadSpeed), (.gap, gap), (.leadDeceleration, leadDeceleration)]
        for (parameter, value) in given {
            guard let value else { continue }
            guard kind.parameters.contains(parameter) else { throw .notApplicable(parameter, kind) }
            let expected = SyntheticScenario.range(of: parameter, kind)
            guard value.isFinite, expected.contains(value) else { throw .outOfRange(parameter, value: value, expected: expected) }
        }
        self.init(kind, checked: egoSpeed, leadSpeed, gap, leadDeceleration)
    }

    /// The scenario's defaults.
    public init(_ kind: Kind) { self.init(kind, checked: nil, nil, nil, nil) }

    /// A scenario of parameters already checked, the defaults for those that are nil.
    private init(_ kind: Kind, checked egoSpeed: Double?, _ leadSpeed: Double?, _ gap: Double?, _ leadDeceleration: Double?) {
        self.kind = kind
        let ego = kind == .free ? nil : egoSpeed ?? Self.testSpeed
        self.egoSpeed = ego
        switch kind {
        case .free: self.leadSpeed = nil
        case .leadVehicleStopped: self.leadSpeed = 0
        case .leadVehicleDecelerating: self.leadSpeed = leadSpeed ?? Self.testSpeed
        case .leadVehicleMoving: self.leadSpeed = leadSpeed ?? 20 * Self.mph
        case .cutIn: self.leadSpeed = leadSpeed ?? 40 * Self.mph
        case .following: self.leadSpeed = ego
        }
        switch kind {
        case .free: self.gap = nil
        case .leadVehicleStopped, .leadVehicleMoving: self.gap = gap ?? 55
        case .leadVehicleDecelerating: self.gap = gap ?? 30
        case .cutIn: self.gap = gap ?? 12
        case .following: self.gap = gap ?? Self.followingHeadway * (ego ?? Self.testSpeed)
        }
        self.leadDeceleration = kind == .leadVehicleDecelerating ? leadDeceleration ?? 0.3 * Self.g : nil
    }

    /// The values a parameter may take in a scenario.
    static func range(of parameter: Parameter, _ kind: Kind) -> ClosedRange<Double> {
        switch parameter {
        case .egoSpeed: 1...70
        case .leadSpeed: kind == .cutIn ? 2...70 : 0...70
        case .gap: 1...200
        case .leadDeceleration: 0.1...12
        }
    }

    /// Whether a lead is scripted (every scenario but `free`).
    var isScripted: Bool { kind != .free }

    /// The moment `gap` refers to: the start, or for a cut-in the end of the lane change.
    var gapTime: Double { kind == .cutIn ? Self.laneChangeStart + Self.laneChangeDuration : 0 }

    /// The scripted lead along the road at `t`: distance travelled since the start and speed (closed
    /// forms: constant speed, or for `lvd` constant braking from the onset to a stop).
    func leadMotion(at t: Double) -> (travel: Double, speed: Double) {
        let v0 = leadSpeed ?? 0
        guard let a = leadDeceleration, t > Self.leadBrakeOnset else { return (v0 * t, v0) }
        let braking = t - Self.leadBrakeOnset, stop = v0 / a
        let before = v0 * Self.leadBrakeOnset
        if braking >= stop { return (before + v0 * v0 / (2 * a), 0) }
        return (before + v0 * braking - a * braking * braking / 2, v0 - a * braking)
    }

    /// The cut-in's lane change at `t`: the share of the way from its lane to the ego's (0 before,
    /// 1 after; a half cosine, so that it leaves and arrives without a lateral jolt) and its rate, 1/s.
    func laneChange(at t: Double) -> (share: Double, rate: Double) {
        guard kind == .cutIn else { return (1, 0) }
        let u = (t - Self.laneChangeStart) / Self.laneChangeDuration
        if u <= 0 { return (0, 0) }
        if u >= 1 { return (1, 0) }
        return ((1 - cos(.pi * u)) / 2, .pi / (2 * Self.laneChangeDuration) * sin(.pi * u))
    }
}
