/// One detected vehicle: a scored, classified `VehicleBox`.
///
/// It encodes flat, as the reference's detection records are: `score`, `label`, the box's seven
/// fields, `candidate`.
public struct Detection: Sendable, Hashable, Codable {
    /// Sigmoid score of the winning class.
    public var score: Float
    /// Winning class index (0, 1 or 2 after decode).
    public var label: Int
    /// The box; its yaw is in [−π, π).
    public var box: VehicleBox
    /// Index of the head candidate (anchor) this box was decoded from.
    public var candidate: Int

    /// Creates a detection.
    public init(score: Float, label: Int, box: VehicleBox, candidate: Int) {
        self.score = score
        self.label = label
        self.box = box
        self.candidate = candidate
    }

    /// The class, if `label` names one.
    public var vehicleClass: VehicleClass? { VehicleClass(rawValue: label) }

    enum CodingKeys: String, CodingKey { case score, label, candidate }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        score = try c.decode(Float.self, forKey: .score)
        label = try c.decode(Int.self, forKey: .label)
        candidate = try c.decode(Int.self, forKey: .candidate)
        box = try VehicleBox(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(score, forKey: .score)
        try c.encode(label, forKey: .label)
        try c.encode(candidate, forKey: .candidate)
        try box.encode(to: encoder)
    }
}
