// CLibWebSockets for its link line: libwebsockets is called from CLiveServer's C only.
import CLibWebSockets
import CLiveServer
import Foundation

/// The C server (`CLiveServer`, over libwebsockets) seen from Swift: it binds at creation, runs its
/// own service thread, and reports connections, client messages and refusals to `handler` on
/// that thread.
final class WebSocketHost: @unchecked Sendable {
    /// What the server reports.
    enum Event {
        case connected(client: UInt64, peer: String, subprotocol: String)
        case message(client: UInt64, peer: String, bytes: [UInt8], binary: Bool)
        case disconnected(client: UInt64, peer: String, dropped: UInt64)
        case refused(peer: String, path: String, reason: String)
        case cutOff(client: UInt64, peer: String, reason: String, dropped: UInt64)
    }

    /// The limits the C server enforces.
    struct Limits {
        var maxClients: Int
        var handshakeTimeout: Int
        var maxMessageBytes: Int
        var stallTimeout: Double
        var queuedUnits: Int
    }

    /// A file served from memory.
    struct File {
        var path: String
        var contentType: String
        var body: [UInt8]
    }

    /// The port bound (the one asked for, or the one the system chose for 0).
    let port: Int
    // Set at creation, cleared by `stop`; the lock makes that visible to every thread.
    private var server: OpaquePointer?
    private let lock = NSLock()
    private var live: OpaquePointer? { lock.withLock { server } }
    private let handlerBox: HandlerBox

    private final class HandlerBox {
        let handler: (Event) -> Void
        init(_ handler: @escaping (Event) -> Void) { self.handler = handler }
    }

    /// Binds `host:port` and starts serving.
    ///
    /// - Throws: `LiveViewServerError.cannotListen`.
    init(
        host: String, port: Int, token: String?, subprotocols: [String], files: [File], contentSecurityPolicy: String, limits: Limits,
        handler: @escaping (Event) -> Void
    ) throws(LiveViewServerError) {
        handlerBox = HandlerBox(handler)
        let context = Unmanaged.passUnretained(handlerBox).toOpaque()
        // Every C string and buffer below lives until pv_server_start returns, which copies them.
        let cStrings = subprotocols.map { strdup($0) }
        defer { for string in cStrings { free(string) } }
        let cPaths = files.map { strdup($0.path) }, cTypes = files.map { strdup($0.contentType) }
        defer { for string in cPaths + cTypes { free(string) } }
        let bodies = files.map { file -> UnsafeMutablePointer<UInt8> in
            let body = UnsafeMutablePointer<UInt8>.allocate(capacity: max(file.body.count, 1))
            body.initialize(from: file.body, count: file.body.count)
            return body
        }
        defer { for body in bodies { body.deallocate() } }
        var cFiles = files.indices.map { i in
            pv_server_file(path: cPaths[i], content_type: cTypes[i], body: bodies[i], length: files[i].body.count)
        }
        var protocolPointers = cStrings.map { UnsafePointer<CChar>($0) }
        var bound: Int32 = 0
        var error = [CChar](repeating: 0, count: 512)
        var created: OpaquePointer?
        let status = host.withCString { cHost in
            contentSecurityPolicy.withCString { csp in
                (token ?? "").withCString { cToken in
                    protocolPointers.withUnsafeMutableBufferPointer { protocols in
                        cFiles.withUnsafeMutableBufferPointer { filesBuffer in
                            var options = pv_server_options(
                                host: cHost, port: Int32(port), token: token == nil ? nil : cToken,
                                subprotocols: UnsafePointer(protocols.baseAddress), subprotocol_count: Int32(protocols.count),
                                files: UnsafePointer(filesBuffer.baseAddress), file_count: Int32(filesBuffer.count),
                                content_security_policy: csp, max_clients: Int32(limits.maxClients),
                                handshake_timeout_s: Int32(limits.handshakeTimeout), max_message_bytes: limits.maxMessageBytes,
                                stall_timeout_s: limits.stallTimeout, queue_units: Int32(limits.queuedUnits),
                                callback: { context, event in
                                    guard let context, let event else { return }
                                    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
                                    box.handler(WebSocketHost.event(event.pointee))
                                },
                                context: context)
                            return pv_server_start(&options, &created, &bound, &error, error.count)
                        }
                    }
                }
            }
        }
        guard status == 0, let created else {
            throw .cannotListen(address: "\(host):\(port)", reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        server = created
        self.port = Int(bound)
    }

    deinit { stop() }

    /// Sends a protocol message; false when the client is gone.
    @discardableResult
    func sendText(_ text: Data, to client: UInt64) -> Bool {
        guard let server = live else { return false }
        return text.withUnsafeBytes { raw in
            pv_server_send_text(server, client, raw.bindMemory(to: UInt8.self).baseAddress, raw.count) == 0
        }
    }

    /// Queues a frame's messages as one unit (sent after `wake`); the number of older units
    /// dropped (0 or 1), or nil when the client is gone.
    func sendUnit(_ messages: [[UInt8]], to client: UInt64) -> Int? {
        guard let server = live else { return nil }
        let pointers = messages.map { message -> UnsafeMutablePointer<UInt8> in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(message.count, 1))
            p.initialize(from: message, count: message.count)
            return p
        }
        defer { for pointer in pointers { pointer.deallocate() } }
        var constPointers = pointers.map { Optional(UnsafePointer($0)) }
        var lengths = messages.map(\.count)
        let status = pv_server_send_unit(server, client, &constPointers, &lengths, Int32(messages.count))
        return status < 0 ? nil : Int(status)
    }

    /// Wakes the service thread to send the units queued since the last wake.
    func wake() {
        guard let server = live else { return }
        pv_server_wake(server)
    }

    /// Closes a client with a WebSocket close status.
    func close(_ client: UInt64, status: Int32, reason: String) {
        guard let server = live else { return }
        pv_server_close_client(server, client, status, reason)
    }

    /// Closes every connection and ends the service thread; idempotent.
    /// Callbacks during the stop find the host stopped and send nothing.
    func stop() {
        let stopping: OpaquePointer? = lock.withLock {
            defer { server = nil }
            return server
        }
        guard let stopping else { return }
        pv_server_stop(stopping)
    }

    private static func event(_ e: pv_server_event) -> Event {
        let peer = e.peer.map { String(cString: $0) } ?? "", text = e.text.map { String(cString: $0) } ?? ""
        switch Int32(e.kind) {
        case Int32(PV_SERVER_CONNECTED): return .connected(client: e.client, peer: peer, subprotocol: text)
        case Int32(PV_SERVER_MESSAGE):
            let bytes = e.data.map { Array(UnsafeBufferPointer(start: $0, count: e.length)) } ?? []
            return .message(client: e.client, peer: peer, bytes: bytes, binary: e.binary != 0)
        case Int32(PV_SERVER_DISCONNECTED): return .disconnected(client: e.client, peer: peer, dropped: e.dropped)
        case Int32(PV_SERVER_CUT_OFF): return .cutOff(client: e.client, peer: peer, reason: text, dropped: e.dropped)
        default: return .refused(peer: peer, path: e.path.map { String(cString: $0) } ?? "", reason: text)
        }
    }
}
