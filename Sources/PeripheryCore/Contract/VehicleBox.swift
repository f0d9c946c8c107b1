/// A vehicle's 3-D box in the vehicle frame (x forward, y left, z up, metres): the one box value
/// that detections, labels, tracks and the goldens share.
public struct VehicleBox: Sendable, Hashable, Codable {
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

    /// Creates a box from its centre, size and heading.
    public init(x: Double, y: Double, z: Double, length: Double, width: Double, height: Double, yaw: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.length = length
        self.width = width
        self.height = height
        self.yaw = yaw
    }

    /// Ground-plane distance from the vehicle origin, `hypot(x, y)`.
    public var range: Double { (x * x + y * y).squareRoot() }
}
