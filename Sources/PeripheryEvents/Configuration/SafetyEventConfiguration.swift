/// Every threshold of the safety events (`docs/guides/events.md`): the ego's geometry, the path
/// corridor, how closing speed and acceleration are estimated, and the three events' rules.
///
/// Distances are metres, times seconds, speeds m/s, accelerations m/s². The defaults, and where
/// each comes from, are in `docs/guides/events.md#defaults-and-their-sources`; `validate()` (which
/// `SafetyEventDetector` calls) rejects negative and absurd values, naming the field.
public struct SafetyEventConfiguration: Sendable, Hashable {
    /// Forward distance from the vehicle origin (where the tracks' boxes are measured from) to the
    /// ego's front bumper; ranges are measured from it. 3.7 m is the synthetic world's ego
    /// (`ego_front_m` in its `truth.json`).
    public var egoFrontMetres = 3.7
    /// Width of the corridor around the predicted path in which a vehicle is in path: one lane.
    public var corridorWidthMetres = 3.6
    /// Farthest range at which a vehicle is in path.
    public var maximumRangeMetres = 60.0
    /// Below this ego speed the ego counts as stopped: its path is straight and time headway is none.
    public var minimumMovingSpeed = 1.0
    /// Span of the range history that closing speed and acceleration are fitted over.
    public var kinematicsWindowSeconds = 3.0
    /// Shortest history span over which a closing acceleration is fitted; shorter histories give a
    /// closing speed alone.
    public var accelerationMinimumSpanSeconds = 1.5
    /// The fitted closing acceleration enters the time to collision only when it is at least this
    /// many standard errors away from zero (0: always).
    public var accelerationSignificance = 2.0
    /// The acceleration's fit looks for when the closing began to speed up (a lead starting to
    /// brake): a straight line that bends into a parabola at an onset, the onset chosen by least
    /// squares among the samples at least this long before the newest. A parabola over the whole
    /// window bends less than the lead while the window still holds ranges from before its
    /// braking; the bent line does not. 0: a parabola over the whole window.
    public var accelerationOnsetMinimumSeconds = 0.5
    /// Shortest history span that gives a closing speed at all.
    public var minimumSpeedSpanSeconds = 0.5
    /// The fitted closing speed is known only when it is at least this many standard errors away
    /// from zero (0: always).
    public var speedSignificance = 2.0
    /// The detector's range noise at range 0, metres: with `rangeNoiseGrowth`, σ(R) = a + b·R²,
    /// the floor of the noise the fits' standard errors are computed with (the residuals of a fit
    /// to a few samples of a slowly swinging error understate it).
    public var rangeNoiseMetres = 0.2
    /// The growth of the range noise with the square of the range, per metre: an error of the
    /// camera's pitch moves a ground point at range R by about R²/h times it.
    public var rangeNoiseGrowth = 0.001
    /// A box whose centre lies within this of the detector's far edge (x = 40 m,
    /// `EvaluationRegion.safety40`) gives no range to its track's history: the network places no
    /// centre beyond its grid, so a vehicle coming into sight stays at the edge while it closes in,
    /// and its range there is a bound, not a measurement. 0: every range counts.
    public var farEdgeMarginMetres = 1.0
    /// Closing accelerations are clamped to ± this.
    public var maximumClosingAcceleration = 10.0
    /// A track the tracker has lost hands its range history on, for this long after its last
    /// measured range, to a new track of the same vehicle: one that appears where that history puts
    /// it. The tracker starts a new id whenever a far vehicle's range jumps beyond its gate, and a
    /// history that restarted with every id would never be long enough to fit. 0: never.
    public var continuitySeconds = 1.0
    /// The new track's range must lie within this much of the range the lost track's history
    /// predicts, or within `continuityRangeFraction` of it if that is more.
    public var continuityRangeMetres = 2.0
    /// The part of the range that the continuity gate grows to: a camera's range error grows with range.
    public var continuityRangeFraction = 0.25
    /// The range history itself goes on only when the new track's range lies within this many of
    /// the range noise σ(R) (`rangeNoiseMetres`, `rangeNoiseGrowth`) of the range the lost track's
    /// history predicts; otherwise the new track keeps the corridor history alone and starts its
    /// range history afresh. A box metres nearer than the vehicle's history says (the detector
    /// placing a second box on it, or another vehicle) would bend the fit into a closing out of
    /// nothing. 0: the range history goes on wherever the corridor history does.
    public var continuityRangeSigmas = 3.0
    /// The new track's lateral offset from the path must lie within this much of the lost track's last one.
    public var continuityLateralMetres = 1.0
    /// The forward-collision warning's rules.
    public var forwardCollision = ForwardCollision()
    /// The close-following event's rules.
    public var closeFollowing = CloseFollowing()
    /// The cut-in event's rules.
    public var cutIn = CutIn()

    /// Creates the default configuration; adjust fields afterwards.
    public init() {}

    /// When a forward-collision warning starts and ends.
    public struct ForwardCollision: Sendable, Hashable {
        /// The warning is on while the in-path lead's time to collision is at or under this.
        public var timeToCollisionSeconds = 3.5
        /// Once on, the warning holds until the time to collision exceeds the threshold by this much.
        public var hysteresisSeconds = 0.5
        /// No warning while the ego is slower than this (or its speed is unknown).
        public var minimumEgoSpeed = 5.0
        /// No warning starts while the lead closes in slower than this.
        public var minimumClosingSpeed = 1.0
        /// Consecutive frames, on the same lead, that a warning needs before it starts.
        public var confirmationFrames = 3
        /// No warning starts within this time after the previous one ended.
        public var refractorySeconds = 5.0

        /// Creates the default rules.
        public init() {}
    }

    /// When a close-following event starts and ends.
    public struct CloseFollowing: Sendable, Hashable {
        /// Following is close while the time headway to the in-path lead is under this.
        public var headwaySeconds = 1.0
        /// Once close, following stays close until the headway exceeds the threshold by this much.
        public var hysteresisSeconds = 0.2
        /// How long following must stay close, on the same lead, before the event starts.
        public var minimumDurationSeconds = 5.0
        /// No event while the ego is slower than this (or its speed is unknown).
        public var minimumEgoSpeed = 11.2

        /// Creates the default rules.
        public init() {}
    }

    /// When a cut-in event starts and ends.
    public struct CutIn: Sendable, Hashable {
        /// A vehicle cuts in when it enters the corridor at a range of at most this.
        public var maximumRangeMetres = 25.0
        /// A vehicle counts as outside the corridor only beyond its edge by this much, so that one
        /// riding the edge does not cut in again and again.
        public var lateralMarginMetres = 0.3
        /// Consecutive frames a vehicle must be seen outside, and then inside, the corridor.
        public var confirmationFrames = 3
        /// A cut-in ends this long after it started, or earlier when the vehicle leaves the corridor
        /// or is lost.
        public var durationSeconds = 2.0
        /// No cut-in starts while the ego is slower than this (or its speed is unknown).
        public var minimumEgoSpeed = 5.0

        /// Creates the default rules.
        public init() {}
    }
}
