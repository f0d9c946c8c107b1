/// Where an event is in its life at a frame; the raw values are the names outputs write.
public enum SafetyEventPhase: String, Sendable, Hashable, Codable, CaseIterable {
    /// The frame at which the event starts (its confirmation or minimum time is met).
    case start
    /// A frame while the event stays on.
    case update
    /// The frame at which it ends (or the end of the run, `SafetyEventDetector.finish()`).
    case end
}
