import PeripheryCore
import PeripheryIO

/// A Foxglove MCAP recording as a session output (`docs/guides/mcap.md`), closed with its summary
/// section and footer however the run ends.
extension FoxgloveRecording: PerceptionOutput {
    public func write(_ processed: ProcessedFrame) throws {
        try append(FoxgloveFrame(processed))
    }

    public func finish(_ summary: RunSummary) throws {
        try finish()
    }
}
