import Foundation
import PeripheryIO

/// The connected viewers and what each subscribed to. Changed on the server's thread (connections,
/// client messages), read on the publishing thread; one lock guards it.
final class ViewerTable: @unchecked Sendable {
    /// One viewer.
    struct Viewer {
        var peer: String
        /// Subscription id by channel id (a channel is subscribed at most once per viewer).
        var subscriptions: [UInt32: UInt32] = [:]
        /// Client messages refused so far.
        var refused = 0
    }

    /// Where a frame's messages go: per viewer, the subscription id of each topic it wants.
    struct Route {
        var client: UInt64
        var subscriptions: [FoxgloveTopic: UInt32]
    }

    private let lock = NSLock()
    private var viewers: [UInt64: Viewer] = [:]

    /// Whether any viewer wants any channel: pictures are encoded only then.
    var isWatched: Bool {
        lock.withLock { viewers.values.contains { !$0.subscriptions.isEmpty } }
    }

    /// Viewers connected now.
    var count: Int { lock.withLock { viewers.count } }

    func add(_ client: UInt64, peer: String) {
        lock.withLock { viewers[client] = Viewer(peer: peer) }
    }

    func remove(_ client: UInt64) {
        _ = lock.withLock { viewers.removeValue(forKey: client) }
    }

    /// Applies a client message; the problems found, one line each, for status messages.
    func apply(_ message: FoxgloveClientMessage, from client: UInt64) -> [String] {
        lock.withLock {
            guard var viewer = viewers[client] else { return [] }
            var problems: [String] = []
            switch message {
            case .subscribe(let list):
                for subscription in list {
                    if FoxgloveServerMessage.topic(ofChannel: subscription.channelId) == nil {
                        problems.append("subscribe: no channel \(subscription.channelId)")
                    } else if viewer.subscriptions.values.contains(subscription.id) {
                        problems.append("subscribe: subscription id \(subscription.id) is already in use")
                    } else if viewer.subscriptions[subscription.channelId] != nil {
                        problems.append("subscribe: channel \(subscription.channelId) is already subscribed")
                    } else {
                        viewer.subscriptions[subscription.channelId] = subscription.id
                    }
                }
            case .unsubscribe(let ids):
                for id in ids {
                    if let channel = viewer.subscriptions.first(where: { $0.value == id })?.key {
                        viewer.subscriptions[channel] = nil
                    } else {
                        problems.append("unsubscribe: no subscription \(id)")
                    }
                }
            case .unsupported(let operation):
                problems.append("\(operation) is not supported: this server is read-only")
            }
            viewers[client] = viewer
            return problems
        }
    }

    /// Counts a refused message of `client`; the count so far.
    func countRefusal(of client: UInt64) -> Int {
        lock.withLock {
            viewers[client]?.refused += 1
            return viewers[client]?.refused ?? 0
        }
    }

    /// The viewers that want something, and what.
    func routes() -> [Route] {
        lock.withLock {
            viewers.compactMap { client, viewer in
                guard !viewer.subscriptions.isEmpty else { return nil }
                var wanted: [FoxgloveTopic: UInt32] = [:]
                for (channel, id) in viewer.subscriptions {
                    if let topic = FoxgloveServerMessage.topic(ofChannel: channel) { wanted[topic] = id }
                }
                return Route(client: client, subscriptions: wanted)
            }
        }
    }
}
