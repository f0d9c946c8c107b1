/// What a video file's container says about its video track.
public struct VideoInfo: Sendable, Hashable {
    /// Frame size in pixels.
    public var width: Int
    public var height: Int
    /// Average frame rate, frames/s; nil when the container does not say.
    public var fps: Double?
    /// Track duration in seconds, when known.
    public var duration: Double?
    /// Frames in the track per the container's index (MP4, MOV), when it has one.
    public var frameCount: Int?
    /// The decoder's name: h264, hevc, mjpeg, vp9, libdav1d, ...
    public var codec: String
}
