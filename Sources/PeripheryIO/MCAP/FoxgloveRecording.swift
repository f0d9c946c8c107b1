import Foundation
import PeripheryCore
import PeripheryGeometry

/// A perception run as an MCAP file that Foxglove opens as it is (`docs/guides/mcap.md`): one channel
/// per `FoxgloveTopic` with its schema, and per frame `FoxgloveEncoder`'s messages (the camera
/// picture, its calibration, the camera's pose on the vehicle, the tracks and raw detections as 3-D
/// boxes, the ego's recent path, the frame's raw result and the run's counts), with log times the
/// frames' times.
///
/// The file is `path.partial` until `finish()`, which a failed run calls too: what was recorded
/// before a failure stays a valid, indexed file.
public final class FoxgloveRecording {
    /// The file written.
    public let path: String
    private var writer: MCAPWriter
    private var channels: [FoxgloveTopic: MCAPWriter.ChannelID] = [:]

    /// Creates the file and registers the schemas and channels.
    ///
    /// - Throws: `OutputWriteError`.
    public init(path: String) throws {
        self.path = path
        writer = try MCAPWriter(path: path, library: "periphery")
        for topic in FoxgloveTopic.allCases {
            let schema = try writer.addSchema(name: topic.schemaName, encoding: FoxgloveTopic.schemaEncoding, data: topic.schema)
            channels[topic] = try writer.addChannel(topic: topic.rawValue, schema: schema, messageEncoding: FoxgloveTopic.messageEncoding)
        }
    }

    /// Records one frame's messages, each on its topic's channel.
    ///
    /// - Throws: `OutputWriteError`.
    public func write(_ messages: [FoxgloveEncoder.Message]) throws {
        for message in messages {
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
