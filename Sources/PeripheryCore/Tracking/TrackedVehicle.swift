/// A confirmed track as the tracker reports it (reference `TrackedVehicle`, `docs/reference/tracker.md#82-inputs-and-outputs`).
public struct TrackedVehicle: Sendable, Hashable {
    /// Motion state of a track.
    public enum MotionState: String, Sendable, Hashable, Codable {
        case unknown, parked, moving
    }

    /// Where the displayed heading comes from.
    public enum HeadingSource: String, Sendable, Hashable, Codable {
        /// The detector's box yaw.
        case model
        /// The track's over-ground velocity.
        case motion
    }

    /// Track id, from 1.
    public var id: Int
    /// The box in the current ego frame; its yaw is the display heading (`headingSource`).
    public var box: VehicleBox
    /// The raw track yaw from the detector.
    public var modelYaw: Double
    /// Source of `yaw`.
    public var headingSource: HeadingSource
    /// Class label (0 light, 1 large, 2 two-wheeler).
    public var label: Int
    /// Latest detection score.
    public var score: Double
    /// Matched detections so far.
    public var hits: Int
    /// Whether a detection matched this frame (not coasting).
    public var observed: Bool
    /// Seconds since the track was born.
    public var ageSeconds: Double
    /// Parked / moving / unknown.
    public var state: MotionState
    /// Ego-frame over-ground velocity `(vx, vy)`, m/s, when known.
    public var velocity: SIMD2<Double>?
    /// Recent positions `(t, x, y)` in the current ego frame, oldest first.
    public var trail: [SIMD3<Double>]

    /// Creates a tracked vehicle from all its fields.
    public init(
        id: Int, box: VehicleBox, modelYaw: Double, headingSource: HeadingSource, label: Int, score: Double, hits: Int, observed: Bool,
        ageSeconds: Double, state: MotionState, velocity: SIMD2<Double>?, trail: [SIMD3<Double>]
    ) {
        self.id = id
        self.box = box
        self.modelYaw = modelYaw
        self.headingSource = headingSource
        self.label = label
        self.score = score
        self.hits = hits
        self.observed = observed
        self.ageSeconds = ageSeconds
        self.state = state
        self.velocity = velocity
        self.trail = trail
    }

    /// One frame's detection as a vehicle to draw, without a tracker: observed, one hit, age 0, the
    /// model's heading, state unknown, no velocity and no trail.
    public init(detection: Detection, id: Int) {
        self.init(
            id: id, box: detection.box, modelYaw: detection.box.yaw, headingSource: .model, label: detection.label,
            score: Double(detection.score), hits: 1, observed: true, ageSeconds: 0, state: .unknown, velocity: nil, trail: [])
    }
}
