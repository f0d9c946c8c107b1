/// One frame's ground truth: the vehicles a detector should find and the "don't care" ones.
///
/// A don't-care vehicle (KITTI's `DontCare`) is really there but outside what the detector is
/// given — in the synthetic datasets, visible in the camera frame but not in the focal-matched
/// crop the network sees. Finding one is not a false positive; missing one is not a miss.
public struct GroundTruth: Sendable, Hashable {
    /// Vehicles that count: each is a true positive when found and a false negative when missed.
    public var vehicles: [GroundTruthBox]
    /// Vehicles that neither count as misses nor make a prediction near them a false positive.
    public var dontCare: [GroundTruthBox]

    /// Ground truth of one frame.
    public init(vehicles: [GroundTruthBox], dontCare: [GroundTruthBox] = []) {
        self.vehicles = vehicles
        self.dontCare = dontCare
    }
}
