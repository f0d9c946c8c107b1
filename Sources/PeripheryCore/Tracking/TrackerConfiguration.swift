/// Tuning of `VehicleTracker` (reference `VehicleTrackerConfiguration`, `docs/reference/tracker.md#81-configuration`).
///
/// The defaults are the reference's, which are also the configuration its conformance fixture was
/// produced with. Distances are metres, times seconds, speeds m/s.
public struct TrackerConfiguration: Sendable, Hashable {
    /// Radial localisation noise `σr = sigmaRadialA + sigmaRadialB·range`.
    public var sigmaRadialA = 0.18
    /// Growth of the radial noise per metre of range.
    public var sigmaRadialB = 0.0123
    /// Lateral localisation noise `σl = sigmaLateralA + sigmaLateralB·range`.
    public var sigmaLateralA = 0.08
    /// Growth of the lateral noise per metre of range.
    public var sigmaLateralB = 0.005
    /// Accept a pair by its range-aware normalised distance (`< gateSigmas`) rather than by metres.
    public var rangeAwareGate = true
    /// Euclidean gate at zero time step, metres.
    public var gateFloor = 2.0
    /// Growth of the Euclidean gate per second of time step.
    public var gateSpeed = 12.0
    /// Largest accepted normalised distance when `rangeAwareGate` is on.
    public var gateSigmas = 4.0
    /// Hits after which a track is reported.
    public var confirmHits = 3
    /// A track unseen for longer than this dies.
    public var holdSeconds = 0.5
    /// A track with fewer hits dies on its first miss; `nil` lets every track coast for `holdSeconds`.
    public var coastMinimumHits: Int? = 8
    /// Baseline of the two-sample world velocity.
    public var baselineSeconds = 1.0
    /// Samples in the least-squares state velocity; `nil` uses the baseline velocity instead.
    public var stateObservations: Int? = 5
    /// Samples in the prediction velocity; `nil` uses the baseline velocity instead.
    public var predictionObservations: Int? = 4
    /// Speeds below this (or below the noise-derived threshold, if larger) vote for parked.
    public var parkedBelow = 1.0
    /// Noise multiple of the noise-derived parked threshold.
    public var parkedSigmas = 1.5
    /// Consecutive parked votes that make a track parked.
    public var parkedConfirmationFrames = 2
    /// Exponential smoothing factor of the reported velocity.
    public var outputVelocityAlpha = 0.35
    /// Beyond this range the motion state is unknown.
    public var stateMaximumRange = 40.0
    /// Tracks unseen for longer than this keep their state and velocity frozen.
    public var coastFreezeSeconds = 0.2
    /// Suppress overlapping detections and tracks of the same family.
    public var suppressOverlap = true
    /// Scale of the boxes in the overlap test.
    public var overlapShrink = 1.0
    /// Age of the oldest trail point, seconds.
    public var trailSeconds = 1.5
    /// Subtracted from the model yaw when it is displayed, degrees.
    public var headingBiasDegrees = 3.24
    /// From this speed on the displayed heading follows the velocity.
    public var motionHeadingMinimumSpeed = 5.0

    /// Creates the reference configuration; adjust fields afterwards.
    public init() {}
}
