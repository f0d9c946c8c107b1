import Foundation
import Periphery

/// Harness: bytes as one WebSocket message from a live-view client (`FoxgloveClientMessage`, the
/// Foxglove WebSocket protocol). The first byte's low bit says whether the message came as binary.
/// Every input must parse or throw; what parses must stay within the protocol's limits.
func fuzzFoxgloveClient(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let message = Array(UnsafeBufferPointer(start: bytes + 1, count: count - 1))
    guard let parsed = try? FoxgloveClientMessage(parsing: message, binary: bytes[0] & 1 == 1) else { return 0 }
    switch parsed {
    case let .subscribe(list): precondition(list.count <= FoxgloveClientMessage.listLimit, "\(list.count) subscriptions")
    case let .unsubscribe(ids): precondition(ids.count <= FoxgloveClientMessage.listLimit, "\(ids.count) ids")
    case let .unsupported(operation): precondition(!operation.isEmpty)
    }
    return 0
}
