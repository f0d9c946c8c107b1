import PeripheryCore

/// What the events made of one frame, as the evaluation reads it: the assessment and the confirmed
/// tracks it was made from (their boxes place a warning's vehicle against the labels).
public struct SafetyEventObservation: Sendable, Hashable {
    /// The frame's assessment (`PerceptionResult.safety`).
    public var assessment: SafetyAssessment
    /// The frame's confirmed tracks (`PerceptionResult.tracks`).
    public var tracks: [TrackedVehicle]

    /// Creates an observation.
    public init(assessment: SafetyAssessment, tracks: [TrackedVehicle]) {
        self.assessment = assessment
        self.tracks = tracks
    }
}
