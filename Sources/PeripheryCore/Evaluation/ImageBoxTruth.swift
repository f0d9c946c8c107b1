/// A labelled vehicle as `ImageBoxMatcher` sees it: its hand-drawn rectangle and whether it counts.
public struct ImageBoxTruth: Sendable, Hashable {
    /// (min x, min y, max x, max y), pixels of the source frame.
    public var rectangle: SIMD4<Double>
    /// True when missing it is a miss; false for a don't-care vehicle, one beyond the evaluated
    /// range or one out of the detector's view, on which a detection is neither true nor false.
    public var counts: Bool

    /// Creates a truth.
    public init(rectangle: SIMD4<Double>, counts: Bool) {
        self.rectangle = rectangle
        self.counts = counts
    }
}
