import Foundation

/// What a live run reads: a camera, a network stream, or a file played at its own rate.
public enum LiveSourceKind: Sendable, Equatable {
    /// A V4L2 device: `/dev/videoN`, or any character device under `/dev`.
    case camera
    /// An `rtsp://`, `udp://`, `srt://`, `tcp://`, `http(s)://` (and `rtp://`, `rtmp://`) stream.
    case stream
    /// A video file, paced by its own timestamps (`--realtime`).
    case file

    /// The schemes read as network streams.
    public static let streamSchemes: Set<String> = ["rtsp", "rtsps", "udp", "rtp", "srt", "tcp", "http", "https", "rtmp"]

    /// What `source` names: nil for a path that is neither a device nor a stream URL.
    public static func of(_ source: String) -> LiveSourceKind? {
        if source.hasPrefix("/dev/video") { return .camera }
        var info = stat()
        if source.hasPrefix("/dev/"), stat(source, &info) == 0, info.st_mode & S_IFMT == S_IFCHR { return .camera }
        guard let colon = source.range(of: "://") else { return nil }
        return streamSchemes.contains(source[..<colon.lowerBound].lowercased()) ? .stream : nil
    }

    /// `source` for messages, without a password (`rtsp://user:secret@host` → `rtsp://user:***@host`).
    public static func redacted(_ source: String) -> String {
        guard let scheme = source.range(of: "://"), let at = source[scheme.upperBound...].firstIndex(of: "@") else { return source }
        let userInfo = source[scheme.upperBound..<at]
        guard !userInfo.contains("/"), let colon = userInfo.firstIndex(of: ":") else { return source }
        return String(source[..<colon]) + ":***" + String(source[at...])
    }
}
