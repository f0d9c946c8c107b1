import Foundation
import PeripheryCore
import PeripheryIO
import PeripheryRun

/// Live perception for viewers, as a session output (`docs/guides/live.md`): an HTTP + WebSocket server on
/// one port that speaks the Foxglove WebSocket protocol (Foxglove Studio connects to `ws://HOST:PORT`)
/// and serves a page at `/` that shows the camera beside the bird's-eye view.
///
/// Viewers never slow the engine:
/// - frames are encoded (`FoxgloveEncoder`, the MCAP's own messages) only while someone has
///   subscribed, at most `viewFPS` a second, on a thread of the server's own;
/// - each viewer has a bounded queue in which the newest frame wins; drops are counted per viewer;
/// - a viewer that takes nothing for `stallTimeout` seconds while data waits is cut off.
///
/// Only who should gets in: the server binds loopback unless told otherwise; off loopback, or when a
/// token is given, every request and handshake must carry the token (`?token=` or
/// `Authorization: Bearer`), else 401. Off loopback there is always a token: the one given or, when
/// none is, 128 random bits the server generates (`token`, also in `pageURL`). A token is letters,
/// digits and `-._~`, never empty; the URLs carry it percent-escaped. It is read-only: no
/// publishing, parameters or services.
public final class LiveViewServer: PerceptionOutput, @unchecked Sendable {
    /// How the server listens and what it allows.
    public struct Options: Sendable {
        /// Where to listen; loopback by default.
        public var address = ServeAddress(port: 8080)
        /// The token every request must carry (letters, digits and `-._~`); nil: none on loopback,
        /// a generated one elsewhere.
        public var token: String?
        /// The most frames a second sent to viewers.
        public var viewFPS = 15.0
        /// WebSocket viewers at once.
        public var maxClients = 16
        /// Seconds a client has to send its request and complete a handshake.
        public var handshakeTimeout = 5
        /// The longest client message, bytes; a longer one closes the client.
        public var maxClientMessageBytes = 65536
        /// Seconds a viewer may take nothing while data waits before it is cut off.
        public var stallTimeout = 5.0
        /// Frames waiting per viewer; a newer frame replaces the oldest.
        public var queuedFrames = 2
        /// Client messages refused before the client is closed.
        public var refusalLimit = 20
        /// JPEG quality of the camera pictures.
        public var jpegQuality = 85
        /// `serverInfo`'s metadata: the page shows a banner when `weights` is "synthetic" or "untrained".
        public var metadata: [String: String] = [:]

        /// The defaults: loopback port 8080, 15 frames a second.
        public init() {}
    }

    /// The subprotocols accepted; the first one a client offers is echoed.
    public static let subprotocols = ["foxglove.websocket.v1", "foxglove.sdk.v1"]

    /// The address served, with the port bound.
    public let address: ServeAddress
    /// The token requests must carry, if any.
    public let token: String?
    /// The page's address, with the token.
    public var pageURL: String { "http://\(address.authority)/" + ViewerToken.query(token) }
    /// The Foxglove WebSocket address, with the token.
    public var foxgloveURL: String { "ws://\(address.authority)/" + ViewerToken.query(token) }
    /// Sees what the server has to say: viewers coming and going, refused requests (without the
    /// token). Called on the server's threads, one call at a time.
    public var onLog: @Sendable (String) -> Void {
        get { logLock.withLock { logger } }
        set { logLock.withLock { logger = newValue } }
    }

    private let options: Options
    private let viewers = ViewerTable()
    private var host: WebSocketHost?
    private var publisher: ViewPublisher?
    private let logLock = NSLock()
    private var logger: @Sendable (String) -> Void = { _ in }
    // The engine's thread only:
    private var egoPath = FoxgloveEgoPath()
    private var credit = 2.0, lastOffer: Double?

    /// Binds and starts serving.
    ///
    /// - Throws: `LiveViewServerError` when the token is not allowed, the page is missing or the
    ///   address cannot be bound.
    public init(options: Options) throws(LiveViewServerError) {
        self.options = options
        if let given = options.token { try ViewerToken.validate(given) }
        token = options.token ?? (options.address.isLoopback ? nil : ViewerToken.generated())
        let sessionId = ViewerToken.generated()
        let files = try LivePage.files(token: token)
        let limits = WebSocketHost.Limits(
            maxClients: options.maxClients, handshakeTimeout: options.handshakeTimeout, maxMessageBytes: options.maxClientMessageBytes,
            stallTimeout: options.stallTimeout, queuedUnits: options.queuedFrames)
        let serverInfo = FoxgloveServerMessage.serverInfo(metadata: options.metadata, sessionId: sessionId)
        // The handler runs on the server's thread; it holds the server weakly, which owns the host.
        let weakSelf = WeakBox<LiveViewServer>()
        let host = try WebSocketHost(
            host: options.address.host, port: options.address.port, token: token, subprotocols: Self.subprotocols, files: files,
            contentSecurityPolicy: LivePage.contentSecurityPolicy, limits: limits
        ) { event in weakSelf.value?.handle(event, serverInfo: serverInfo) }
        address = ServeAddress(host: options.address.host, port: host.port)
        self.host = host
        weakSelf.value = self
        publisher = ViewPublisher(
            encoder: FoxgloveEncoder(jpegQuality: options.jpegQuality), deliver: { [weak self] in self?.broadcast($0) },
            onError: { [weak self] in self?.log($0) })
    }

    deinit {
        publisher?.stop()
        host?.stop()
    }

    /// Viewers connected now.
    public var viewerCount: Int { viewers.count }

    /// On the engine's thread: keeps the ego path (which must see every frame) and, while someone
    /// watches and the rate allows, hands the frame to the encoding thread.
    public func write(_ processed: ProcessedFrame) throws {
        let path = egoPath.advance(processed.ego)
        let now = MonotonicClock.now
        // A bucket of two frames' credit refilled at viewFPS: on average at most viewFPS, without
        // skipping frames of a source that runs at exactly that rate with some jitter.
        credit = min(2, credit + (lastOffer.map { now - $0 } ?? 0) * options.viewFPS)
        lastOffer = now
        guard viewers.isWatched, credit >= 1 else { return }
        credit -= 1
        publisher?.offer(processed, egoPath: path)
    }

    /// Stops encoding and closes every connection.
    public func finish(_ summary: RunSummary) throws {
        publisher?.stop()
        publisher = nil
        host?.stop()
        host = nil
    }

    /// On the encoding thread: each viewer gets the messages of the channels it subscribed to, as one unit.
    private func broadcast(_ messages: [FoxgloveEncoder.Message]) {
        guard let host else { return }
        for route in viewers.routes() {
            let frames = messages.compactMap { message in
                route.subscriptions[message.topic].map {
                    FoxgloveServerMessage.messageData(subscription: $0, logTime: message.logTime, payload: message.data)
                }
            }
            if !frames.isEmpty { _ = host.sendUnit(frames, to: route.client) }
        }
        // One wake-up for every viewer's unit: each wake takes a turn of a thread beside the engine's.
        host.wake()
    }

    /// On the server's thread.
    private func handle(_ event: WebSocketHost.Event, serverInfo: Data) {
        guard let host else { return }
        switch event {
        case .connected(let client, let peer, let subprotocol):
            viewers.add(client, peer: peer)
            host.sendText(serverInfo, to: client)
            host.sendText(FoxgloveServerMessage.advertise, to: client)
            log("live view: viewer \(client) connected from \(peer) (\(subprotocol))")
        case .message(let client, let peer, let bytes, let binary):
            var problems: [String]
            do {
                problems = viewers.apply(try FoxgloveClientMessage(parsing: bytes, binary: binary), from: client)
            } catch {
                problems = [error.description]
            }
            for problem in problems {
                host.sendText(FoxgloveServerMessage.status(level: 2, problem), to: client)
                if viewers.countRefusal(of: client) == options.refusalLimit {
                    log("live view: viewer \(client) (\(peer)) closed after \(options.refusalLimit) refused messages")
                    host.close(client, status: 1008, reason: "too many refused messages")
                }
            }
        case .disconnected(let client, let peer, let dropped):
            viewers.remove(client)
            log("live view: viewer \(client) (\(peer)) left; \(dropped) frames dropped for it")
        case .cutOff(let client, let peer, let reason, let dropped):
            viewers.remove(client)
            log("live view: viewer \(client) (\(peer)) cut off: \(reason); \(dropped) frames dropped for it")
        case .refused(let peer, let path, let reason):
            log("live view: refused \(peer) \(path): \(reason)")
        }
    }

    private func log(_ line: String) {
        logLock.withLock { logger(line) }
    }
}

/// A weak reference that can be set after the closure holding it was made.
private final class WeakBox<Value: AnyObject>: @unchecked Sendable {
    weak var value: Value?
}
