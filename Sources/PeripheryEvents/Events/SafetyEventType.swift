/// The kinds of safety event; the raw values are the names outputs write.
public enum SafetyEventType: String, Sendable, Hashable, Codable, CaseIterable {
    /// The in-path lead's time to collision is under the warning threshold.
    case forwardCollision = "forward_collision"
    /// The time headway to the in-path lead has stayed under the threshold for the minimum time.
    case closeFollowing = "close_following"
    /// A vehicle seen outside the corridor has entered it within range.
    case cutIn = "cut_in"
}
