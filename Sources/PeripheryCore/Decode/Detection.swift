/// One detected vehicle: a 3-D box in the vehicle frame (x forward, y left, z up, metres).
public struct Detection: Sendable, Hashable, Codable {
    /// Sigmoid score of the winning class.
    public var score: Float
    /// Winning class index (0, 1 or 2 after decode).
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
    /// Heading in [−π, π), counter-clockwise from vehicle x.
    public var yaw: Double
    /// Index of the head candidate (anchor) this box was decoded from.
    public var candidate: Int

    /// Creates a detection from its fields.
    public init(
        score: Float, label: Int, x: Double, y: Double, z: Double,
        length: Double, width: Double, height: Double, yaw: Double, candidate: Int
    ) {
        self.score = score
        self.label = label
        self.x = x
        self.y = y
        self.z = z
        self.length = length
        self.width = width
        self.height = height
        self.yaw = yaw
        self.candidate = candidate
    }

    /// The class, if `label` names one.
    public var vehicleClass: VehicleClass? { VehicleClass(rawValue: label) }

    /// Ground-plane distance from the vehicle origin, `hypot(x, y)`.
    public var range: Double { (x * x + y * y).squareRoot() }
}
