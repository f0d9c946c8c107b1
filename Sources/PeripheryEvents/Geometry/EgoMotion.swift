import PeripheryCore

/// How the ego moves at a frame: its speed along its own +x and its yaw rate.
public struct EgoMotion: Sendable, Hashable {
    /// Forward speed, m/s.
    public var speed: Double
    /// Yaw rate, rad/s, counter-clockwise (a left turn is positive).
    public var yawRate: Double

    /// Creates a motion from its speed and yaw rate.
    public init(speed: Double, yawRate: Double) {
        self.speed = speed
        self.yawRate = yawRate
    }

    /// The motion over a frame's ego step: speed `dx / dt`, yaw rate `dyaw / dt`.
    ///
    /// `nil` when the step is invalid, spans no time or holds a non-finite number: the ego's
    /// motion is then unknown, which is not the same as standing still.
    public init?(_ delta: EgoDelta) {
        guard delta.valid, delta.dt > 0, delta.dt.isFinite, delta.dx.isFinite, delta.dyaw.isFinite else { return nil }
        self.init(speed: delta.dx / delta.dt, yawRate: delta.dyaw / delta.dt)
    }
}
