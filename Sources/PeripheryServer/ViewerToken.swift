import Foundation

/// The token a live view's viewers must give: which tokens are allowed, how one is made, and how it
/// goes into a URL. The server holds these rules, so that no caller can open it off loopback
/// without a usable token.
enum ViewerToken {
    /// RFC 3986's unreserved characters: a token of these needs no escaping in a URL, a header or a
    /// shell, so that what a user types is what every client sends.
    static let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Refuses an empty token (which would leave the server open) and one with other characters.
    ///
    /// - Throws: `LiveViewServerError.invalidToken`, which does not repeat the token.
    static func validate(_ token: String) throws(LiveViewServerError) {
        guard !token.isEmpty else { throw .invalidToken(reason: "it is empty") }
        guard token.unicodeScalars.allSatisfy(allowed.contains) else {
            throw .invalidToken(reason: "use letters, digits and -._~ only")
        }
    }

    /// `?token=T`, T percent-escaped, or "" without a token. Escaping changes no valid token; it is
    /// here so that no URL the server prints or serves can carry a reserved character raw.
    static func query(_ token: String?) -> String {
        token.map { "?token=" + ($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") } ?? ""
    }

    /// 128 random bits as hex, from the system's cryptographic generator.
    static func generated() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }
}
