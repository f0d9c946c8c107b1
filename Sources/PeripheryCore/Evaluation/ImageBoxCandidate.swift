/// A detection as `ImageBoxMatcher` sees it: its rectangle in the picture and its score.
public struct ImageBoxCandidate: Sendable, Hashable {
    /// (min x, min y, max x, max y), pixels of the source frame.
    public var rectangle: SIMD4<Double>
    /// The detection's score.
    public var score: Float
    /// False for a detection beyond the evaluated range: left out, not false, when it matches nothing.
    public var inRange: Bool

    /// Creates a candidate.
    public init(rectangle: SIMD4<Double>, score: Float, inRange: Bool = true) {
        self.rectangle = rectangle
        self.score = score
        self.inRange = inRange
    }
}
