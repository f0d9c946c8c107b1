import PeripheryIO

/// The replay sidecar as a session output: one line per frame, the summary last.
public final class SidecarOutput: PerceptionOutput {
    private var sidecar: ReplaySidecar

    /// Writes `sidecar` (already created with its header).
    public init(_ sidecar: ReplaySidecar) {
        self.sidecar = sidecar
    }

    public func write(_ processed: ProcessedFrame) throws {
        try sidecar.append(processed)
    }

    public func finish(_ summary: RunSummary) throws {
        try sidecar.finish(summary: summary)
    }
}
