/// When a frame stream must restart the tracker instead of predicting tracks forward
/// (reference PerceptionEngine, `docs/reference/tracker.md#86-ego-motion-for-the-tracker`).
enum TrackerResetPolicy {
    /// Largest accepted mismatch between the ego motion's `dt` and the frame interval, seconds.
    static let intervalTolerance = 0.02
    /// Longest frame interval the tracker bridges, seconds.
    static let maxInterval = 1.0

    /// Whether to reset before a frame at `timestamp`: the timestamp is not finite, there is no
    /// previous frame, the ego motion is missing, invalid or not finite, the interval is ≤ 0 or
    /// > 1 s, or `ego.dt` is more than 20 ms off the interval.
    static func needsReset(timestamp: Double, previous: Double?, ego: EgoDelta?) -> Bool {
        guard timestamp.isFinite, let previous, let ego, ego.valid,
            ego.dx.isFinite, ego.dy.isFinite, ego.dyaw.isFinite, ego.dt.isFinite
        else { return true }
        let interval = timestamp - previous
        return interval <= 0 || interval > maxInterval || abs(ego.dt - interval) > intervalTolerance
    }
}
