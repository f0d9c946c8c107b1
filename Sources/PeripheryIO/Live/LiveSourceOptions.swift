import Foundation

/// How to open a camera or a network stream, and how long to wait for it.
public struct LiveSourceOptions: Sendable, Equatable {
    /// RTSP's transport for the media.
    public enum RTSPTransport: String, Sendable, CaseIterable {
        case tcp, udp
    }

    /// A V4L2 capture size, `WxH`.
    public var videoSize: String?
    /// A V4L2 capture rate, frames/s.
    public var framerate: Double?
    /// A V4L2 pixel or compressed format (`mjpeg`, `yuyv422`, `h264`, …).
    public var inputFormat: String?
    /// RTSP over TCP or UDP (FFmpeg's default tries UDP first).
    public var rtspTransport: RTSPTransport?
    /// Wait for the sender to connect: a camera that pushes RTSP, an HTTP or TCP sender.
    public var listen = false
    /// Seconds any one blocking call may wait (connecting, a packet): a silent source cannot hang
    /// a run.
    public var readTimeout = 3.0
    /// Seconds a network source may stay lost (or not yet up) before the run gives up.
    public var reconnectTimeout = 10.0

    /// Defaults: FFmpeg's own for the device and the protocol, 3 s per read, 10 s to reconnect.
    public init() {}

    /// The first option that cannot work, as the error a source throws for it.
    func validate(source: String) throws(VideoError) {
        if let size = videoSize {
            let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...16_384).contains(w), (1...16_384).contains(h) else {
                throw .invalidOption(path: source, option: "video-size", reason: "'\(size)' is not WxH")
            }
        }
        if let rate = framerate, !(rate > 0 && rate <= 1000) {
            throw .invalidOption(path: source, option: "framerate", reason: "\(rate) is not a rate in (0, 1000] frames/s")
        }
        if let format = inputFormat, format.isEmpty || !format.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
            throw .invalidOption(path: source, option: "input-format", reason: "'\(format)' is not a format name")
        }
        guard readTimeout > 0, readTimeout.isFinite else {
            throw .invalidOption(path: source, option: "timeout", reason: "must be a positive number of seconds")
        }
        guard reconnectTimeout >= 0, reconnectTimeout.isFinite else {
            throw .invalidOption(path: source, option: "reconnect-timeout", reason: "must be a number of seconds ≥ 0")
        }
    }
}
