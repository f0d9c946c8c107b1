import PeripheryCore

/// The tracker stepped over recorded frames with the engine's reset rules (`TrackerResetPolicy`):
/// a frame whose time or ego motion cannot be bridged restarts the tracker instead of corrupting it.
public struct TrackerReplay: Sendable {
    /// The tracker, as of the last frame.
    public private(set) var tracker: VehicleTracker
    /// The last frame's time.
    public private(set) var previous: Double?

    /// Starts with an empty tracker.
    public init(configuration: TrackerConfiguration = TrackerConfiguration()) {
        tracker = VehicleTracker(configuration: configuration)
    }

    /// Feeds one frame and returns the confirmed tracks. As in `PerceptionEngine`, a frame with a
    /// non-finite time resets the tracker and reports no tracks, and the frame after it resets too.
    public mutating func step(_ frame: RecordedFrame) -> [TrackedVehicle] {
        var ego = frame.ego ?? EgoDelta(dt: 0)
        if TrackerResetPolicy.needsReset(timestamp: frame.t, previous: previous, ego: frame.ego) {
            tracker.reset()
            ego = EgoDelta(dt: 0)
        }
        guard frame.t.isFinite else {
            previous = nil
            return []
        }
        previous = frame.t
        return tracker.step(detections: frame.detections, ego: ego, t: frame.t)
    }
}
