import Foundation

/// What a viewer may ask of the server, in the Foxglove WebSocket protocol (`foxglove.websocket.v1`
/// and `foxglove.sdk.v1`): the server is read-only, so only subscriptions are honoured; the other
/// operations of the protocol are recognised and refused.
public enum FoxgloveClientMessage: Sendable, Equatable {
    /// A subscription: the client's id for it and the channel.
    public struct Subscription: Sendable, Equatable {
        public var id: UInt32
        public var channelId: UInt32
    }

    /// `subscribe`: start receiving channels.
    case subscribe([Subscription])
    /// `unsubscribe`: stop, by subscription id.
    case unsubscribe([UInt32])
    /// An operation of the protocol that this server does not offer (publishing, parameters,
    /// services, assets, the connection graph).
    case unsupported(operation: String)

    /// The most subscriptions or ids one message may carry.
    public static let listLimit = 1024

    /// Operations of the protocol a read-only server refuses.
    static let refusedOperations: Set<String> = [
        "advertise", "unadvertise", "getParameters", "setParameters", "subscribeParameterUpdates", "unsubscribeParameterUpdates",
        "subscribeConnectionGraph", "unsubscribeConnectionGraph", "fetchAsset", "callService",
    ]

    /// Parses one client message (a whole WebSocket message).
    ///
    /// - Throws: `FoxgloveClientMessageError` naming what is wrong.
    public init(parsing bytes: [UInt8], binary: Bool) throws(FoxgloveClientMessageError) {
        // Binary client messages are publishing and service calls (opcodes 1 and 2).
        if binary { throw .binary(opcode: bytes.first) }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw .notJSON
        }
        guard let object = value as? [String: Any] else { throw .notAnObject }
        guard let operation = object["op"] as? String else { throw .missingOperation }
        switch operation {
        case "subscribe":
            guard let list = object["subscriptions"] as? [Any] else { throw .malformed(operation, "no `subscriptions` list") }
            guard list.count <= Self.listLimit else { throw .malformed(operation, "more than \(Self.listLimit) subscriptions") }
            self = .subscribe(
                try list.map { (entry: Any) throws(FoxgloveClientMessageError) -> Subscription in
                    guard let fields = entry as? [String: Any], let id = Self.identifier(fields["id"]),
                        let channel = Self.identifier(fields["channelId"])
                    else { throw .malformed(operation, "a subscription needs integer `id` and `channelId` in 0...\(UInt32.max)") }
                    return Subscription(id: id, channelId: channel)
                })
        case "unsubscribe":
            guard let list = object["subscriptionIds"] as? [Any] else { throw .malformed(operation, "no `subscriptionIds` list") }
            guard list.count <= Self.listLimit else { throw .malformed(operation, "more than \(Self.listLimit) ids") }
            self = .unsubscribe(
                try list.map { (entry: Any) throws(FoxgloveClientMessageError) -> UInt32 in
                    guard let id = Self.identifier(entry) else { throw .malformed(operation, "ids must be integers in 0...\(UInt32.max)") }
                    return id
                })
        case let other where Self.refusedOperations.contains(other):
            self = .unsupported(operation: other)
        default:
            throw .unknownOperation(String(operation.prefix(64)))
        }
    }

    /// A protocol id: a JSON integer in UInt32's range (not a fraction, not a Boolean).
    private static func identifier(_ value: Any?) -> UInt32? {
        // JSON's true and false arrive as NSNumbers of type char ("c").
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, double >= 0, double <= Double(UInt32.max) else { return nil }
        return UInt32(double)
    }
}

/// Why a client message was refused; the server answers with a status message naming it.
public enum FoxgloveClientMessageError: Error, Equatable, CustomStringConvertible {
    /// A binary message: publishing or a service call, which a read-only server does not take.
    case binary(opcode: UInt8?)
    /// Not JSON.
    case notJSON
    /// JSON, but not an object.
    case notAnObject
    /// No `op` string.
    case missingOperation
    /// An `op` the protocol does not have.
    case unknownOperation(String)
    /// A known operation with missing or wrong fields.
    case malformed(String, String)

    public var description: String {
        switch self {
        case .binary(let opcode): "binary message (opcode \(opcode.map(String.init) ?? "none")): this server is read-only"
        case .notJSON: "the message is not JSON"
        case .notAnObject: "the message is not a JSON object"
        case .missingOperation: "the message has no \"op\""
        case .unknownOperation(let op): "unknown operation \"\(op)\""
        case .malformed(let op, let why): "\(op): \(why)"
        }
    }
}
