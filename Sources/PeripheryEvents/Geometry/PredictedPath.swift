/// The ego's predicted path: an arc from the vehicle origin, tangent to +x, of constant curvature.
public struct PredictedPath: Sendable, Hashable {
    /// Curvature, 1/m, positive to the left.
    public var curvature: Double

    /// Creates a path of the given curvature.
    public init(curvature: Double) {
        self.curvature = curvature
    }

    /// The straight path ahead.
    public static let straight = PredictedPath(curvature: 0)

    /// The arc the ego drives at its current speed and yaw rate: curvature `yawRate / speed`.
    ///
    /// Straight when the motion is unknown or the ego is slower than `minimumMovingSpeed`, where
    /// the ratio says nothing about the road.
    public init(ego: EgoMotion?, minimumMovingSpeed: Double) {
        guard let ego, ego.speed >= minimumMovingSpeed, ego.speed > 0, ego.yawRate.isFinite else {
            self = .straight
            return
        }
        self.init(curvature: ego.yawRate / ego.speed)
    }

    /// Lateral offset of the point `(x, y)` (vehicle frame, metres) from the path, positive left:
    /// `y − κx²/2`, the small-angle form of the distance to the arc.
    public func lateralOffset(x: Double, y: Double) -> Double {
        y - curvature * x * x / 2
    }
}
