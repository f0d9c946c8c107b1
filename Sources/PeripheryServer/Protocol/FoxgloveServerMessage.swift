import Foundation
import PeripheryIO

/// What the server says in the Foxglove WebSocket protocol: JSON text for `serverInfo`,
/// `advertise` and `status`, and binary message-data frames.
enum FoxgloveServerMessage {
    /// `serverInfo`: a read-only server (no capabilities), with `metadata` (the weights) and a session id.
    static func serverInfo(metadata: [String: String], sessionId: String) -> Data {
        json([
            "op": "serverInfo", "name": "periphery", "capabilities": [String](), "supportedEncodings": [String](), "metadata": metadata,
            "sessionId": sessionId,
        ])
    }

    /// `advertise`: every channel of a run, its id the topic's place in `FoxgloveTopic.allCases` plus one.
    static let advertise: Data = json([
        "op": "advertise",
        "channels": FoxgloveTopic.allCases.map { topic in
            [
                "id": channelId(of: topic), "topic": topic.rawValue, "encoding": FoxgloveTopic.messageEncoding, "schemaName": topic.schemaName,
                "schema": String(decoding: topic.schema, as: UTF8.self), "schemaEncoding": FoxgloveTopic.schemaEncoding,
            ] as [String: Any]
        },
    ])

    /// `status`: level 0 info, 1 warning, 2 error.
    static func status(level: Int, _ message: String) -> Data {
        json(["op": "status", "level": level, "message": message])
    }

    /// A message-data frame: opcode 1, the subscription id (uint32) and log time (uint64, ns), both
    /// little-endian, then the payload.
    static func messageData(subscription: UInt32, logTime: UInt64, payload: Data) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(13 + payload.count)
        bytes.append(1)
        withUnsafeBytes(of: subscription.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: logTime.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// The channel id of `topic`.
    static func channelId(of topic: FoxgloveTopic) -> UInt32 {
        UInt32((FoxgloveTopic.allCases.firstIndex(of: topic) ?? 0) + 1)
    }

    /// The topic of channel `id`, if it is one.
    static func topic(ofChannel id: UInt32) -> FoxgloveTopic? {
        let index = Int(id) - 1
        return FoxgloveTopic.allCases.indices.contains(index) ? FoxgloveTopic.allCases[index] : nil
    }

    private static func json(_ object: [String: Any]) -> Data {
        // Every value above is a string, number, list or dictionary of them: serialisable.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }
}
