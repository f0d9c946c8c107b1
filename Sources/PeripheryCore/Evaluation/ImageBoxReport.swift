/// The real-frame figures (`docs/guides/evaluation.md#real-frames`): per group of frames (a camera)
/// and over all of them, the frame count, the counted vehicles and TP / FP / FN.
public struct ImageBoxReport: Sendable, Hashable {
    /// One group's totals.
    public struct Group: Sendable, Hashable {
        /// The group's name (a camera), or "all".
        public var name: String
        /// Frames added.
        public var frames = 0
        /// TP / FP / FN summed over the frames.
        public var counts = MatchCounts()

        /// Creates an empty group.
        public init(name: String) { self.name = name }

        /// Labelled vehicles that count (TP + FN).
        public var labelled: Int { counts.truePositives + counts.falseNegatives }
        /// False positives per frame (0 with no frames).
        public var falsePerFrame: Double { frames > 0 ? Double(counts.falsePositives) / Double(frames) : 0 }
    }

    /// The groups in the order their first frame was added.
    public private(set) var groups: [Group] = []
    /// Every frame together.
    public private(set) var overall = Group(name: "all")

    /// Creates an empty report.
    public init() {}

    /// Adds one frame's outcome to its group and to the total.
    public mutating func add(_ outcome: ImageBoxOutcome, group name: String) {
        if !groups.contains(where: { $0.name == name }) { groups.append(Group(name: name)) }
        for i in groups.indices where groups[i].name == name {
            groups[i].frames += 1
            groups[i].counts += outcome.counts
        }
        overall.frames += 1
        overall.counts += outcome.counts
    }
}
