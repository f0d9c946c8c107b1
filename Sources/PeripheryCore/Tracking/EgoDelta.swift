import Foundation

/// The ego vehicle's motion between two tracker steps (reference `EgoDelta`, `docs/reference/tracker.md#82-inputs-and-outputs`).
///
/// `dx` and `dy` are the displacement of the new ego origin expressed in the old ego frame (x
/// forward, y left, metres); `dyaw` is the heading change (radians, counter-clockwise) and `dt` the
/// time step (seconds). `valid` is false when the motion could not be measured; the tracker itself
/// does not read it — the caller resets the tracker instead (§8.6, PerceptionEngine).
public struct EgoDelta: Sendable, Hashable {
    /// Forward displacement in the old ego frame, metres.
    public var dx: Double
    /// Leftward displacement in the old ego frame, metres.
    public var dy: Double
    /// Heading change, radians, counter-clockwise.
    public var dyaw: Double
    /// Time step, seconds.
    public var dt: Double
    /// Whether the motion was measured.
    public var valid: Bool

    /// Creates a delta; the default is "no motion over no time", valid.
    public init(dx: Double = 0, dy: Double = 0, dyaw: Double = 0, dt: Double = 0, valid: Bool = true) {
        self.dx = dx
        self.dy = dy
        self.dyaw = dyaw
        self.dt = dt
        self.valid = valid
    }

    /// Ground speed over the interval (m/s), nil when the motion is invalid or spans no time.
    public var speed: Double? {
        valid && dt > 0 ? (dx * dx + dy * dy).squareRoot() / dt : nil
    }

    /// The constant-twist arc driven at `speed` (m/s) and `yawRate` (rad/s) for `dt` seconds
    /// (reference `arcDelta`, §8.6).
    ///
    /// `dyaw = ω·dt`; for `|ω| < 1e-6` the path is straight, `(v·dt, 0)`; otherwise
    /// `dx = v·sin(dyaw)/ω`, `dy = v·(1 − cos(dyaw))/ω`.
    public static func arc(speed: Double, yawRate: Double, dt: Double) -> EgoDelta {
        let dyaw = yawRate * dt
        guard abs(yawRate) >= 1e-6 else {
            return EgoDelta(dx: speed * dt, dy: 0, dyaw: dyaw, dt: dt)
        }
        return EgoDelta(
            dx: speed * sin(dyaw) / yawRate,
            dy: speed * (1 - cos(dyaw)) / yawRate,
            dyaw: dyaw, dt: dt
        )
    }
}
