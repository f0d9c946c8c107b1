/// One labelled vehicle: a ground-truth 3-D box in the vehicle frame (x forward, y left, z up, metres).
///
/// The fields mirror `Detection` without the score and candidate, so that a prediction and its
/// label can be compared field by field.
public struct GroundTruthBox: Sendable, Hashable, Codable {
    /// Class index (0, 1 and 2 are vehicles; 3, pedestrian, is ignored by evaluation).
    public var label: Int
    /// Forward position of the box centre.
    public var x: Double
    /// Lateral position of the box centre (positive left).
    public var y: Double
    /// Height of the box centre.
    public var z: Double
    /// Extent along the box heading.
    public var length: Double
    /// Extent across the box heading.
    public var width: Double
    /// Vertical extent.
    public var height: Double
    /// Heading in radians, counter-clockwise from vehicle x.
    public var yaw: Double

    /// Creates a ground-truth box from its fields.
    public init(
        label: Int, x: Double, y: Double, z: Double,
        length: Double, width: Double, height: Double, yaw: Double
    ) {
        self.label = label
        self.x = x
        self.y = y
        self.z = z
        self.length = length
        self.width = width
        self.height = height
        self.yaw = yaw
    }

    /// The class, if `label` names one.
    public var vehicleClass: VehicleClass? { VehicleClass(rawValue: label) }

    /// Ground-plane distance from the vehicle origin, `hypot(x, y)`.
    public var range: Double { (x * x + y * y).squareRoot() }
}
