/// How fast a vehicle closes in on the ego's bumper: `v = −d(range)/dt` and `a = dv/dt`.
public struct ClosingKinematics: Sendable, Hashable {
    /// Closing speed, m/s; positive while the range shrinks.
    public var speed: Double
    /// Closing acceleration, m/s²; positive when the closing speeds up (the lead brakes, or the ego
    /// accelerates). `nil` when the range history is too short, or the fit cannot tell it from zero
    /// (`SafetyEventConfiguration.accelerationSignificance`).
    public var acceleration: Double?

    /// Creates closing kinematics.
    public init(speed: Double, acceleration: Double?) {
        self.speed = speed
        self.acceleration = acceleration
    }
}
