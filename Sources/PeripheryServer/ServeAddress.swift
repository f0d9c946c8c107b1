/// Where a live view server listens: `--serve [HOST:]PORT`.
public struct ServeAddress: Sendable, Equatable {
    /// An IPv4 or IPv6 address ("localhost" is taken as 127.0.0.1).
    public var host: String
    /// The port; 0 lets the system choose.
    public var port: Int

    /// Loopback by default: a server reaches other machines only when told to.
    public init(host: String = "127.0.0.1", port: Int) {
        (self.host, self.port) = (host, port)
    }

    /// Parses `PORT`, `HOST:PORT` or `[IPV6]:PORT`.
    ///
    /// - Throws: `LiveViewServerError.invalidAddress`.
    public init(parsing text: String) throws(LiveViewServerError) {
        var host = "127.0.0.1", portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .invalidAddress(text, reason: "expected [IPV6]:PORT")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard let port = Int(portText), (0...65535).contains(port) else { throw .invalidAddress(text, reason: "the port must be 0...65535") }
        guard Self.isAddress(host) else { throw .invalidAddress(text, reason: "\"\(host)\" is not an IPv4 or IPv6 address") }
        self.init(host: host, port: port)
    }

    /// Whether only this machine can reach the address (127.0.0.0/8 or ::1).
    public var isLoopback: Bool {
        host == "::1" || (host.split(separator: ".").first == "127" && Self.isIPv4(host))
    }

    /// `host:port` as a URL authority (IPv6 in brackets).
    public var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func isAddress(_ host: String) -> Bool {
        isIPv4(host) || (host.contains(":") && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } && host.count <= 45)
    }

    private static func isIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in part.count <= 3 && Int(part).map { (0...255).contains($0) } == true }
    }
}
