import Foundation

/// The page a live view server serves at `/` (`Page/`: HTML, JavaScript and CSS, with no request
/// to any other host), and the Content-Security-Policy it is served under.
struct LivePage {
    static let fileNames = ["index.html", "app.js", "style.css"]

    /// What the page may load: its own scripts, styles and WebSocket, pictures made in the page.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The files to serve; the page's references to its scripts and styles carry `token`, because
    /// every request must when a token is set.
    static func files(token: String?) throws(LiveViewServerError) -> [WebSocketHost.File] {
        let directory = try directory()
        var files: [WebSocketHost.File] = []
        for name in fileNames {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                throw .pageNotFound(searched: [directory + "/" + name])
            }
            var body = [UInt8](data)
            if name == "index.html" {
                body = Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "%TOKEN_QUERY%", with: ViewerToken.query(token)).utf8)
            }
            let type = name.hasSuffix(".html") ? "text/html" : name.hasSuffix(".js") ? "text/javascript" : "text/css"
            let contentType = type + "; charset=utf-8"
            files.append(WebSocketHost.File(path: "/" + name, contentType: contentType, body: body))
            if name == "index.html" { files.append(WebSocketHost.File(path: "/", contentType: contentType, body: body)) }
        }
        return files
    }

    /// The page's folder: next to the running executable (built or installed) or, in a source
    /// checkout, beside this file.
    private static func directory() throws(LiveViewServerError) -> String {
        var candidates: [String] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            candidates.append(executable.appendingPathComponent("Periphery_PeripheryServer.resources/Page").path)
        }
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Page").path)
        guard let found = candidates.first(where: { dir in fileNames.allSatisfy { FileManager.default.fileExists(atPath: dir + "/" + $0) } })
        else { throw .pageNotFound(searched: candidates) }
        return found
    }
}
