import PeripheryIO

/// A Foxglove MCAP recording as a session output (`docs/guides/mcap.md`): every processed frame's
/// `FoxgloveEncoder` messages, the file closed with its summary section and footer however the run
/// ends.
public final class RecordingOutput: PerceptionOutput {
    /// The recording written.
    public let recording: FoxgloveRecording
    private let encoder: FoxgloveEncoder
    private var egoPath = FoxgloveEgoPath()

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
    }

    public func finish(_ summary: RunSummary) throws {
        try recording.finish()
    }
}
