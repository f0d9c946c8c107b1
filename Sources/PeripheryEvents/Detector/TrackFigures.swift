/// One confirmed track's figures at the current frame.
struct TrackFigures: Sendable, Hashable {
    var track: Int
    /// From the ego's bumper, metres.
    var range: Double
    /// Of the box centre from the predicted path, metres.
    var lateralOffset: Double
    /// Whether the box centre is within half the corridor's width of the path.
    var inCorridor: Bool
    /// In the corridor, ahead of the bumper and within the maximum range.
    var inPath: Bool
    /// Whether the detector measured it at this frame (the tracker did not coast it).
    var measured = true
    var closing: ClosingKinematics?
    var timeToCollision: Double?
    var headway: Double?

    /// The figures as the lead's measurement.
    var leadMeasurement: LeadMeasurement {
        LeadMeasurement(
            track: track, range: range, lateralOffset: lateralOffset, closing: closing, timeToCollision: timeToCollision,
            headway: headway)
    }
}
