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

    /// Forgets every track and the previous frame.
    public mutating func reset() {
        tracker.reset()
        previous = nil
    }

    /// Feeds one frame; returns the confirmed tracks and whether the tracker was reset first. A
    /// frame with a non-finite time resets the tracker and reports no tracks, and the frame after
    /// it resets too.
    public mutating func step(_ frame: TrackerInput) -> (tracks: [TrackedVehicle], reset: Bool) {
        var ego = frame.ego ?? EgoDelta(dt: 0)
        let reset = TrackerResetPolicy.needsReset(timestamp: frame.t, previous: previous, ego: frame.ego)
        if reset {
            tracker.reset()
            ego = EgoDelta(dt: 0)
        }
        guard frame.t.isFinite else {
            previous = nil
            return ([], reset)
        }
        previous = frame.t
        return (tracker.step(detections: frame.detections, ego: ego, t: frame.t), reset)
    }
}
