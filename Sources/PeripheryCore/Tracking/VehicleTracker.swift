import Foundation

/// Multi-object tracker for detected vehicles: association, motion state and display heading
/// (reference `VehicleTracker`, an exact port of the Python `associate.py` and `heading_state.py`;
/// `docs/reference/tracker.md#8-vehicletracker`).
///
/// Feed it one frame at a time with `step(detections:ego:t:)`; it returns the confirmed tracks.
/// Positions are in the current ego (vehicle) frame; internally the tracker keeps the ego pose in
/// a world frame anchored at the last reset, so that track velocities are over the ground.
///
/// It is a value type: a step mutates only this value, a copy is an independent snapshot, and a
/// tracker can be handed between tasks without locking.
public struct VehicleTracker: Sendable {
    /// The tuning this tracker runs with.
    public let configuration: TrackerConfiguration
    /// Totals since the last reset.
    public private(set) var counters = TrackerCounters()

    /// Live tracks, confirmed or not, in birth order (survivors keep their order). Internal so that
    /// the extensions in the other `VehicleTracker+…` files can update them.
    var tracks: [VehicleTrack] = []
    /// Ego pose in the world frame.
    var pose = EgoPose()

    /// Creates an empty tracker.
    public init(configuration: TrackerConfiguration = TrackerConfiguration()) {
        self.configuration = configuration
    }

    /// Forgets every track, the ego pose and the counters; the next id is 1 again.
    public mutating func reset() {
        tracks.removeAll(keepingCapacity: true)
        pose = EgoPose()
        counters = TrackerCounters()
    }

    /// Advances the tracker by one frame and returns the confirmed tracks in track order.
    ///
    /// - Parameters:
    ///   - input: this frame's boxes in the current vehicle frame.
    ///   - ego: the ego motion from the previous frame to this one. `ego.valid` is not read: when
    ///     the motion is unknown the caller resets the tracker instead.
    ///   - t: this frame's timestamp, seconds.
    ///
    /// The order is the reference's (§8.4): same-family overlap suppression of the detections,
    /// prediction with the ego motion, range-aware gating and Hungarian assignment, update of the
    /// matched tracks, misses, births, world samples, deaths, track overlap suppression, motion
    /// states, and output.
    public mutating func step(detections input: [Detection], ego: EgoDelta, t: Double) -> [TrackedVehicle] {
        var detections = input
        if configuration.suppressOverlap {
            let kept = suppressOverlappingDetections(detections)
            counters.detectionSuppressed += detections.count - kept.count
            detections = kept
        }

        predict(ego)
        pose.advance(ego)

        let pairs = match(detections, dt: max(ego.dt, 1e-3), egoStep: hypot(ego.dx, ego.dy))
        var trackMatched = [Bool](repeating: false, count: tracks.count)
        var detectionMatched = [Bool](repeating: false, count: detections.count)
        for pair in pairs {
            tracks[pair.row].update(with: detections[pair.column], t: t)
            trackMatched[pair.row] = true
            detectionMatched[pair.column] = true
        }
        counters.matches += pairs.count
        for i in tracks.indices where !trackMatched[i] {
            tracks[i].misses += 1
        }
        for j in detections.indices where !detectionMatched[j] {
            counters.idsIssued += 1
            counters.births += 1
            tracks.append(VehicleTrack(id: counters.idsIssued, detection: detections[j], t: t))
        }

        recordWorldSamples(t: t)
        removeDeadTracks(t: t)
        if configuration.suppressOverlap {
            counters.trackSuppressed += suppressOverlappingTracks()
        }
        labelStates(t: t)
        return confirmedTracks(t: t)
    }

    /// Appends the world position of every observed track (newborns included) and prunes samples
    /// older than `baseline + trail + 0.5` s from every track.
    private mutating func recordWorldSamples(t: Double) {
        let cutoff = t - (configuration.baselineSeconds + configuration.trailSeconds) - 0.5
        for i in tracks.indices {
            if tracks[i].observed {
                let w = pose.toWorld(SIMD2(tracks[i].box.x, tracks[i].box.y))
                tracks[i].record(VehicleTrack.WorldSample(t: t, x: w.x, y: w.y))
            }
            tracks[i].prune(before: cutoff)
        }
    }

    /// Removes tracks unseen for longer than `holdSeconds`, and tracks that missed this frame with
    /// fewer than `coastMinimumHits` hits (young tracks die on their first miss).
    private mutating func removeDeadTracks(t: Double) {
        let hold = configuration.holdSeconds, coastHits = configuration.coastMinimumHits
        tracks.removeAll { track in
            if t - track.lastSeenT > hold { return true }
            if let coastHits, track.misses > 0, track.hits < coastHits { return true }
            return false
        }
    }
}
