import Foundation
import PeripheryIO
import Testing

@testable import PeripheryServer

/// The server on loopback, spoken to with plain HTTP/1.1 over a socket.
struct LiveViewServerTests {
    /// The status line and headers of `request` sent to 127.0.0.1:`port`.
    private func exchange(_ request: String, port: Int) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: response, as: UTF8.self).contains("\r\n\r\n") {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response += buffer[..<n]
        }
        return String(decoding: response, as: UTF8.self)
    }

    @Test func servesThePageOnlyWithTheToken() throws {
        var options = LiveViewServer.Options()
        options.address = ServeAddress(port: 0)
        options.token = "s3cret"
        let server = try LiveViewServer(options: options)
        let logged = LockedLines()
        server.onLog = { logged.append($0) }
        #expect(server.address.port > 0 && server.pageURL == "http://127.0.0.1:\(server.address.port)/?token=s3cret")
        let port = server.address.port
        let refused = try exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: port)
        #expect(refused.hasPrefix("HTTP/1.1 401"))
        let wrong = try exchange("GET /app.js?token=nope HTTP/1.1\r\nHost: x\r\n\r\n", port: port)
        #expect(wrong.hasPrefix("HTTP/1.1 401"))
        let page = try exchange("GET /?token=s3cret HTTP/1.1\r\nHost: x\r\n\r\n", port: port)
        #expect(page.hasPrefix("HTTP/1.1 200") && page.lowercased().contains("content-security-policy: default-src 'none'"))
        let bearer = try exchange("GET /style.css HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n\r\n", port: port)
        #expect(bearer.hasPrefix("HTTP/1.1 200") && bearer.lowercased().contains("content-type: text/css"))
        let upgrade = try exchange(
            "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n", port: port)
        #expect(upgrade.hasPrefix("HTTP/1.1 401"))
        try server.finish(RunSummary())
        #expect(logged.lines.filter { $0.contains("refused") }.count == 3 && !logged.lines.joined().contains("nope"))
    }

    /// Off loopback the server itself makes sure of a token: none given, it generates 128 bits and
    /// refuses every request without them. It listens on every interface; the requests go to loopback.
    @Test func offLoopbackTheServerGeneratesAToken() throws {
        var options = LiveViewServer.Options()
        options.address = ServeAddress(host: "0.0.0.0", port: 0)
        let server = try LiveViewServer(options: options)
        defer { try? server.finish(RunSummary()) }
        let token = try #require(server.token)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        #expect(server.pageURL == "http://0.0.0.0:\(server.address.port)/?token=\(token)")
        #expect(try exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.address.port).hasPrefix("HTTP/1.1 401"))
        #expect(try exchange("GET /?token=\(token) HTTP/1.1\r\nHost: x\r\n\r\n", port: server.address.port).hasPrefix("HTTP/1.1 200"))
    }

    /// An empty token would leave the server open, and one with other characters than RFC 3986's
    /// unreserved ones would need escaping somewhere: the server refuses both, without echoing them.
    @Test func onlyTokensOfUnreservedCharactersAreTaken() throws {
        for bad in ["", "two words", "a&b", "naïve", "50%"] {
            var options = LiveViewServer.Options()
            options.address = ServeAddress(host: "0.0.0.0", port: 0)
            options.token = bad
            #expect {
                try LiveViewServer(options: options)
            } throws: { error in
                guard case .invalidToken = error as? LiveViewServerError else { return false }
                return bad.isEmpty || !"\(error)".contains(bad)
            }
        }
        var options = LiveViewServer.Options()
        options.address = ServeAddress(port: 0)
        options.token = "A-z.0_9~"
        let server = try LiveViewServer(options: options)
        defer { try? server.finish(RunSummary()) }
        #expect(server.foxgloveURL == "ws://127.0.0.1:\(server.address.port)/?token=A-z.0_9~")
    }

    /// The query that carries a token into a URL escapes everything but the unreserved characters
    /// (RFC 3986 §2.3: ALPHA, DIGIT, "-", ".", "_", "~"; the rest as %XX of its UTF-8 bytes).
    @Test func tokensInURLsArePercentEscaped() {
        #expect(ViewerToken.query("a b&c=d/é~") == "?token=a%20b%26c%3Dd%2F%C3%A9~")
        #expect(ViewerToken.query("Az09-._~") == "?token=Az09-._~" && ViewerToken.query(nil) == "")
    }

    /// A port already in use is a typed error naming the address, not a crash.
    @Test func aBusyPortIsAnError() throws {
        var options = LiveViewServer.Options()
        options.address = ServeAddress(port: 0)
        let first = try LiveViewServer(options: options)
        options.address = first.address
        #expect(throws: LiveViewServerError.self) { try LiveViewServer(options: options) }
        try first.finish(RunSummary())
    }

    /// An address this machine does not have is an error, not a server that waits for it (192.0.2.0/24
    /// is reserved for documentation: never a local address).
    @Test func anAddressNotOfThisMachineIsAnError() {
        var options = LiveViewServer.Options()
        options.address = ServeAddress(host: "192.0.2.1", port: 0)
        #expect(throws: LiveViewServerError.self) { try LiveViewServer(options: options) }
    }
}

/// Log lines gathered from the server's threads.
private final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}
