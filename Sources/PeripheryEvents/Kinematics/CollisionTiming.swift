/// Time to collision and time headway, the two figures the events are judged on.
public enum CollisionTiming {
    /// The smallest `t > 0` with `range − v·t − ½·a·t² = 0`: when the gap closes if the closing
    /// speed `v` and acceleration `a` stay as they are.
    ///
    /// With `a` zero or `nil` it is `range / v`. `nil` when the gap never closes (`v ≤ 0` without a
    /// positive `a`, or a deceleration that stops the closing first) or an input is not finite;
    /// 0 when the range is already ≤ 0.
    public static func timeToCollision(range: Double, closingSpeed: Double, closingAcceleration: Double? = nil) -> Double? {
        let acceleration = closingAcceleration ?? 0
        guard range.isFinite, closingSpeed.isFinite, acceleration.isFinite else { return nil }
        guard range > 0 else { return 0 }
        guard acceleration != 0 else { return closingSpeed > 0 ? range / closingSpeed : nil }
        let discriminant = closingSpeed * closingSpeed + 2 * acceleration * range
        guard discriminant >= 0 else { return nil }
        // The smallest positive root of ½at² + vt − R = 0 in the form that has no cancellation and
        // holds for either sign of a: 2R / (v + √(v² + 2aR)); a non-positive denominator means both
        // roots are negative.
        let denominator = closingSpeed + discriminant.squareRoot()
        guard denominator > 0 else { return nil }
        return 2 * range / denominator
    }

    /// Time headway: `range / egoSpeed`, the time the ego takes to reach where the vehicle ahead is
    /// now. `nil` below `minimumSpeed` (where it grows without meaning) or for non-finite inputs.
    public static func headway(range: Double, egoSpeed: Double, minimumSpeed: Double) -> Double? {
        guard range.isFinite, egoSpeed.isFinite, egoSpeed >= minimumSpeed, egoSpeed > 0 else { return nil }
        return range / egoSpeed
    }
}
