import PeripheryCore
import PeripheryIO
import PeripheryInference

/// One processed frame, as a session hands it to its outputs.
public struct ProcessedFrame: Sendable {
    /// The frame as the source delivered it.
    public var frame: SourceFrame
    /// What the engine made of it.
    public var result: PerceptionResult
    /// The ego motion the tracker was given (nil: none, the tracker restarted).
    public var ego: EgoDelta?
    /// Its place among the processed frames, from 0.
    public var index: Int
    /// Arrival, latency, drops and gaps, as the sidecar records them.
    public var live: ReplaySidecar.LiveFields
    /// The run's counts at this frame, for live viewers.
    public var progress: RunProgress
}
