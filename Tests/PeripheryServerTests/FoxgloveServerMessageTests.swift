import Foundation
import PeripheryIO
import Testing

@testable import PeripheryServer

/// The server's side of the protocol against the Foxglove WebSocket specification's layouts.
struct FoxgloveServerMessageTests {
    /// Message data: opcode 1, then the subscription id (uint32) and log time (uint64), little-endian.
    @Test func messageDataLayout() {
        let bytes = FoxgloveServerMessage.messageData(subscription: 0x0102_0304, logTime: 0x1122_3344_5566_7788, payload: Data("{}".utf8))
        #expect(bytes == [1, 4, 3, 2, 1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x7B, 0x7D])
    }

    /// Every topic is advertised once, with its schema, and channel ids map back to topics.
    @Test func advertiseListsEveryTopic() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: FoxgloveServerMessage.advertise) as? [String: Any])
        #expect(object["op"] as? String == "advertise")
        let channels = try #require(object["channels"] as? [[String: Any]])
        #expect(channels.compactMap { $0["topic"] as? String } == FoxgloveTopic.allCases.map(\.rawValue))
        for channel in channels {
            let id = try #require((channel["id"] as? NSNumber)?.uint32Value)
            let topic = try #require(FoxgloveServerMessage.topic(ofChannel: id))
            #expect(channel["topic"] as? String == topic.rawValue && channel["schemaName"] as? String == topic.schemaName)
            #expect(channel["encoding"] as? String == "json" && channel["schemaEncoding"] as? String == "jsonschema")
            let schema = try #require((channel["schema"] as? String)?.data(using: .utf8))
            #expect((try JSONSerialization.jsonObject(with: schema) as? [String: Any])?["title"] as? String == topic.schemaName)
        }
        #expect(FoxgloveServerMessage.topic(ofChannel: 0) == nil && FoxgloveServerMessage.topic(ofChannel: 99) == nil)
    }

    /// Subscriptions: a channel once per viewer, ids unique per viewer, unknown channels refused.
    @Test func viewerTableKeepsSubscriptionsConsistent() {
        let table = ViewerTable()
        table.add(7, peer: "127.0.0.1")
        #expect(!table.isWatched)
        #expect(table.apply(.subscribe([.init(id: 1, channelId: 1), .init(id: 2, channelId: 6)]), from: 7).isEmpty)
        #expect(table.isWatched)
        #expect(table.apply(.subscribe([.init(id: 1, channelId: 2)]), from: 7).count == 1)
        #expect(table.apply(.subscribe([.init(id: 3, channelId: 1)]), from: 7).count == 1)
        #expect(table.apply(.subscribe([.init(id: 4, channelId: 42)]), from: 7).count == 1)
        #expect(table.routes().first?.subscriptions == [.image: 1, .result: 2])
        #expect(table.apply(.unsubscribe([1, 2, 9]), from: 7).count == 1)
        #expect(!table.isWatched && table.routes().isEmpty)
        #expect(table.apply(.unsupported(operation: "setParameters"), from: 7).count == 1)
        table.remove(7)
        #expect(table.count == 0)
    }
}
