import PeripheryIO

/// A Foxglove MCAP recording as a session output (`docs/guides/mcap.md`): every processed frame's
/// `FoxgloveEncoder` messages, then the end reports of the events the run's end ended, and the file
/// closed with its summary section and footer however the run ends.
public final class RecordingOutput: PerceptionOutput {
    /// The recording written.
    public let recording: FoxgloveRecording
    private let encoder: FoxgloveEncoder
    private var egoPath = FoxgloveEgoPath()
    /// The last frame written: the events the run's end ends are given its time and index.
    private var last: (timestamp: Double, index: Int)?

    /// Creates the MCAP file at `path`, its camera pictures at `jpegQuality`.
    ///
    /// - Throws: `OutputWriteError`.
    public init(path: String, jpegQuality: Int = 85) throws {
        recording = try FoxgloveRecording(path: path)
        encoder = FoxgloveEncoder(jpegQuality: jpegQuality)
    }

    public func write(_ processed: ProcessedFrame) throws {
        let path = egoPath.advance(processed.ego)
        try recording.write(try encoder.messages(for: processed, egoPath: path, name: recording.path))
        last = (processed.frame.timestamp, processed.index)
    }

    public func finish(_ summary: RunSummary) throws {
        var failure: (any Error)?
        if let last, let reports = summary.events?.finalReports, !reports.isEmpty {
            do {
                try recording.write([encoder.endOfRunMessage(events: reports, timestamp: last.timestamp, index: last.index)])
            } catch {
                // Closed all the same, so that the frames before stay a readable file.
                failure = error
            }
        }
        try recording.finish()
        if let failure { throw failure }
    }
}
