/// How far a run has got at one of its frames: the counts so far and the recent rate, for live
/// viewers (`/perception/stats`, docs/guides/live.md).
public struct RunProgress: Sendable, Equatable, Codable {
    /// Frames processed, this one included.
    public var processed: Int
    /// Frames dropped so far (replaced by newer ones before the engine was free).
    public var dropped: Int
    /// Damaged frames skipped so far.
    public var corrupt: Int
    /// Frames processed per wall-clock second over the last two seconds.
    public var framesPerSecond: Double

    /// The counts as given.
    public init(processed: Int, dropped: Int, corrupt: Int, framesPerSecond: Double) {
        (self.processed, self.dropped, self.corrupt, self.framesPerSecond) = (processed, dropped, corrupt, framesPerSecond)
    }
}
