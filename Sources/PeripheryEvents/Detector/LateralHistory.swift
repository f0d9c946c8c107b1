/// Where one track has been relative to the corridor, for the cut-in rule.
struct LateralHistory: Sendable, Hashable {
    /// Consecutive frames beyond the corridor's edge and its margin.
    var outsideFrames = 0
    /// Whether it has been outside for the confirmation frames since it last entered the corridor.
    var seenOutside = false
    /// Its current run of frames inside the corridor within the cut-in range: when it began, how
    /// many frames and its figures since.
    var entry: EventCandidate?
}
