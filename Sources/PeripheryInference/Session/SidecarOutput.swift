import PeripheryCore
import PeripheryIO

/// The replay sidecar as a session output: one line per frame, the summary last.
public final class SidecarOutput: PerceptionOutput {
    private var sidecar: ReplaySidecar

    /// Writes `sidecar` (already created with its header).
    public init(_ sidecar: ReplaySidecar) {
        self.sidecar = sidecar
    }

    public func write(_ processed: ProcessedFrame) throws {
        let result = processed.result
        try sidecar.append(
            pts: processed.frame.timestamp, ego: processed.ego ?? EgoDelta(dt: 0, valid: false), detections: result.detections,
            tracks: result.tracks, calibration: result.calibration, timings: result.timings.sidecarMilliseconds, live: processed.live)
    }

    public func finish(_ summary: RunSummary) throws {
        try sidecar.finish(summary: summary)
    }
}
