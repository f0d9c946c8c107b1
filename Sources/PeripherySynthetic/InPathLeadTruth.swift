/// The true in-path lead of a synthetic drive at one moment, from the true positions and motions of
/// every vehicle of its traffic (`SyntheticDrive.inPathLead(at:)`; the definitions are those of
/// `docs/guides/synthetic-world.md#scripted-scenarios`).
public struct InPathLeadTruth: Sendable, Hashable {
    /// The vehicle's traffic index, the `id` its labels carry.
    public var id: Int
    /// From the ego's front bumper to the nearest corner of the vehicle's footprint, along vehicle x, metres.
    public var range: Double
    /// How fast the range shrinks, m/s (−d range/dt).
    public var closingSpeed: Double
    /// How fast the closing speed grows, m/s².
    public var closingAcceleration: Double
    /// The first time ahead at which the range, kept on at this closing speed and acceleration,
    /// reaches 0, seconds; nil when it never does.
    public var timeToCollision: Double?
    /// Range over the ego's speed, seconds; nil below 1 m/s.
    public var headway: Double?

    /// The smallest t > 0 with range − v·t − a·t²/2 = 0, nil when there is none.
    ///
    /// Written as 2·range / (v + √(v² + 2·a·range)), which is that root for either sign of `a`
    /// (and range / v for a = 0) without cancelling when `a` is small.
    static func timeToCollision(range: Double, closingSpeed v: Double, closingAcceleration a: Double) -> Double? {
        let discriminant = v * v + 2 * a * range
        guard discriminant >= 0 else { return nil }
        let denominator = v + discriminant.squareRoot()
        return denominator > 0 ? 2 * range / denominator : nil
    }
}
