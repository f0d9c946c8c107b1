import PeripheryIO

/// Where a `PerceptionSession` puts its results: the replay sidecar, an MCAP, a video, pictures,
/// a live view.
///
/// A session calls `write` once per processed frame and `finish` exactly once, however the run
/// ends (the end of the input, a stop, a failure), so that what was written before stays a
/// complete file.
public protocol PerceptionOutput: AnyObject {
    /// Records one processed frame.
    func write(_ processed: ProcessedFrame) throws
    /// Completes the output with the run's summary.
    func finish(_ summary: RunSummary) throws
}
