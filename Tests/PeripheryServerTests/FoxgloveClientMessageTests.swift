import Testing

@testable import PeripheryServer

/// The client-message parser against hand-written protocol messages, good and hostile.
struct FoxgloveClientMessageTests {
    private func parse(_ text: String, binary: Bool = false) throws(FoxgloveClientMessageError) -> FoxgloveClientMessage {
        try FoxgloveClientMessage(parsing: Array(text.utf8), binary: binary)
    }

    @Test func subscribeAndUnsubscribe() throws {
        #expect(
            try parse(#"{"op":"subscribe","subscriptions":[{"id":0,"channelId":1},{"id":4294967295,"channelId":7}]}"#)
                == .subscribe([.init(id: 0, channelId: 1), .init(id: 4_294_967_295, channelId: 7)]))
        #expect(try parse(#"{"op":"unsubscribe","subscriptionIds":[3, 5]}"#) == .unsubscribe([3, 5]))
        #expect(try parse(#"{"op":"setParameters","parameters":[]}"#) == .unsupported(operation: "setParameters"))
    }

    @Test(arguments: [
        ("", FoxgloveClientMessageError.notJSON),
        ("{", .notJSON),
        ("[1,2]", .notAnObject),
        ("\"subscribe\"", .notAnObject),
        (#"{"subscriptions":[]}"#, .missingOperation),
        (#"{"op":7}"#, .missingOperation),
        (#"{"op":"dance"}"#, .unknownOperation("dance")),
        (#"{"op":"subscribe"}"#, .malformed("subscribe", "no `subscriptions` list")),
        (#"{"op":"subscribe","subscriptions":{}}"#, .malformed("subscribe", "no `subscriptions` list")),
        (#"{"op":"unsubscribe","subscriptionIds":"1"}"#, .malformed("unsubscribe", "no `subscriptionIds` list")),
    ])
    func refusesMalformedMessages(text: String, error: FoxgloveClientMessageError) {
        #expect(throws: error) { try parse(text) }
    }

    /// Ids must be integers in UInt32's range: not negative, fractional, too large, Boolean or text.
    @Test(arguments: ["-1", "1.5", "4294967296", "1e30", "true", "\"1\"", "null"])
    func refusesBadIdentifiers(id: String) {
        #expect(throws: FoxgloveClientMessageError.self) { try parse(#"{"op":"subscribe","subscriptions":[{"id":\#(id),"channelId":1}]}"#) }
        #expect(throws: FoxgloveClientMessageError.self) { try parse(#"{"op":"unsubscribe","subscriptionIds":[\#(id)]}"#) }
    }

    @Test func refusesBinaryAndOverlongLists() {
        #expect(throws: FoxgloveClientMessageError.binary(opcode: 1)) { try parse("\u{1}abc", binary: true) }
        let many = (0...FoxgloveClientMessage.listLimit).map { "{\"id\":\($0),\"channelId\":1}" }.joined(separator: ",")
        #expect(throws: FoxgloveClientMessageError.self) { try parse(#"{"op":"subscribe","subscriptions":[\#(many)]}"#) }
    }

    /// Deep nesting, huge numbers and invalid UTF-8 are errors, never crashes.
    @Test func survivesHostileInput() {
        let deep = String(repeating: "[", count: 10_000)
        #expect(throws: FoxgloveClientMessageError.self) { try parse(deep) }
        #expect(throws: FoxgloveClientMessageError.self) { try parse(#"{"op":"subscribe","subscriptions":[{"id":1e400,"channelId":1}]}"#) }
        #expect(throws: FoxgloveClientMessageError.self) { try FoxgloveClientMessage(parsing: [0x7B, 0xFF, 0xFE, 0x7D], binary: false) }
    }
}
