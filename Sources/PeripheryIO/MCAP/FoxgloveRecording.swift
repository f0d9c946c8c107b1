import Foundation
import PeripheryCore
import PeripheryGeometry

/// A perception run as an MCAP file that Foxglove opens as it is (`docs/guides/mcap.md`): per frame, the
/// camera picture (JPEG), its calibration, the camera's pose on the vehicle, the tracks and raw
/// detections as 3-D boxes in the vehicle frame, the ego's recent path, the frame's raw result
/// (the replay sidecar's line) and the run's counts: `FoxgloveEncoder`'s messages, with log
/// times the frames' times.
///
/// The file is `path.partial` until `finish()`, which a failed run calls too: what was recorded
/// before a failure stays a valid, indexed file.
public final class FoxgloveRecording {
    /// The file written.
    public let path: String
    private let encoder: FoxgloveEncoder
    private var writer: MCAPWriter
    private var channels: [FoxgloveTopic: MCAPWriter.ChannelID] = [:]
    private var egoPath = FoxgloveEgoPath()

    /// Creates the file and registers the schemas and channels.
    ///
    /// - Throws: `OutputWriteError`.
    public init(path: String, jpegQuality: Int = 85) throws {
        self.path = path
        encoder = FoxgloveEncoder(jpegQuality: jpegQuality)
        writer = try MCAPWriter(path: path, library: "periphery")
        for topic in FoxgloveTopic.allCases {
            let schema = try writer.addSchema(name: topic.schemaName, encoding: FoxgloveTopic.schemaEncoding, data: topic.schema)
            channels[topic] = try writer.addChannel(topic: topic.rawValue, schema: schema, messageEncoding: FoxgloveTopic.messageEncoding)
        }
    }

    /// Records one frame. Its `egoPath` is replaced by the recording's own, which sees every frame.
    ///
    /// - Throws: `OutputWriteError`, or `ImageError` if the picture cannot be compressed.
    public func append(_ frame: FoxgloveFrame) throws {
        var frame = frame
        frame.egoPath = egoPath.advance(frame.ego)
        for message in try encoder.messages(for: frame, name: path) {
            guard let channel = channels[message.topic] else { preconditionFailure("channel \(message.topic) not registered") }
            try writer.write(channel: channel, logTime: message.logTime, data: Array(message.data))
        }
    }

    /// Writes the summary and footer and gives the file its name.
    ///
    /// - Throws: `OutputWriteError`.
    public func finish() throws {
        try writer.finish()
    }
}
