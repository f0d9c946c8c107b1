/// What the event detector made of one frame: the ego's motion and path, the in-path lead and the
/// reports of the events that are on.
public struct SafetyAssessment: Sendable, Hashable {
    /// The frame's time, seconds.
    public var timestamp: Double
    /// The ego's motion at the frame, `nil` when unknown.
    public var ego: EgoMotion?
    /// The path the corridor follows.
    public var path: PredictedPath
    /// The in-path lead, if any.
    public var lead: LeadMeasurement?
    /// Ids of every confirmed track in path, nearest first.
    public var inPathTracks: [Int]
    /// One report per event that starts, stays on or ends at this frame: forward collision first,
    /// then close following, then cut-ins by track id.
    public var reports: [SafetyEventReport]

    /// Creates an assessment.
    public init(
        timestamp: Double, ego: EgoMotion?, path: PredictedPath, lead: LeadMeasurement?, inPathTracks: [Int], reports: [SafetyEventReport]
    ) {
        self.timestamp = timestamp
        self.ego = ego
        self.path = path
        self.lead = lead
        self.inPathTracks = inPathTracks
        self.reports = reports
    }
}
