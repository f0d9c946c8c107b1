/// The in-path lead at one frame: the confirmed track in the corridor with the smallest range, and
/// its figures.
public struct LeadMeasurement: Sendable, Hashable {
    /// Its track id.
    public var track: Int
    /// Range from the ego's front bumper to its nearest point, metres (> 0).
    public var range: Double
    /// Lateral offset of its box centre from the predicted path, metres, positive left.
    public var lateralOffset: Double
    /// Its closing speed and acceleration, `nil` until its range history is long enough.
    public var closing: ClosingKinematics?
    /// Its time to collision, seconds; `nil` when unknown or the gap does not close.
    public var timeToCollision: Double?
    /// Time headway, seconds; `nil` when the ego's speed is unknown or under
    /// `minimumMovingSpeed`.
    public var headway: Double?

    /// Creates a lead measurement.
    public init(
        track: Int, range: Double, lateralOffset: Double, closing: ClosingKinematics?, timeToCollision: Double?, headway: Double?
    ) {
        self.track = track
        self.range = range
        self.lateralOffset = lateralOffset
        self.closing = closing
        self.timeToCollision = timeToCollision
        self.headway = headway
    }
}
