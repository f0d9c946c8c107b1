/// One labelled vehicle: a ground-truth `VehicleBox` with its class, compared with a detection's
/// box by the evaluation.
public struct GroundTruthBox: Sendable, Hashable, Codable {
    /// Class index (0, 1 and 2 are vehicles; 3, pedestrian, is ignored by evaluation).
    public var label: Int
    /// The box.
    public var box: VehicleBox

    /// Creates a ground-truth box.
    public init(label: Int, box: VehicleBox) {
        self.label = label
        self.box = box
    }

    /// The class, if `label` names one.
    public var vehicleClass: VehicleClass? { VehicleClass(rawValue: label) }

    enum CodingKeys: String, CodingKey { case label }

    /// Decodes the flat form: `label` beside the box's seven fields.
    public init(from decoder: any Decoder) throws {
        label = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .label)
        box = try VehicleBox(from: decoder)
    }

    /// Encodes the flat form: `label` beside the box's seven fields.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(label, forKey: .label)
        try box.encode(to: encoder)
    }
}
