/// The BEV region, in vehicle metres, where detections are reported and evaluated.
///
/// Bounds are inclusive: `0 ≤ x ≤ 40` forward and `−10 ≤ y ≤ 10` lateral. A decoded box outside
/// it is a decode artefact, not a detection.
public struct EvaluationRegion: Sendable, Hashable {
    /// Nearest forward distance.
    public var minX: Double
    /// Farthest forward distance.
    public var maxX: Double
    /// Rightmost lateral offset (negative is right).
    public var minY: Double
    /// Leftmost lateral offset.
    public var maxY: Double

    /// Creates a region from its bounds.
    public init(minX: Double, maxX: Double, minY: Double, maxY: Double) {
        self.minX = minX
        self.maxX = maxX
        self.minY = minY
        self.maxY = maxY
    }

    /// The reference region: 0…40 m ahead, ±10 m lateral.
    public static let safety40 = EvaluationRegion(minX: 0, maxX: 40, minY: -10, maxY: 10)

    /// Whether the BEV point lies inside the region (bounds inclusive).
    @inlinable
    public func contains(x: Double, y: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY
    }
}
