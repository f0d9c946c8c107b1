import PeripheryCore
import PeripheryGeometry

/// One camera frame as a frame source delivers it, with what the source knows about it.
public struct SourceFrame: Sendable {
    /// A name for messages: the image's path, or `stdin frame N`.
    public var name: String
    /// The pixels.
    public var image: RGBImage
    /// Frame time, seconds.
    public var timestamp: Double
    /// The frame's own camera (a drive's `frames.csv`), if it has one.
    public var intrinsics: CameraIntrinsics?
    /// Ego motion since the previous frame, when the source records motion.
    public var ego: EgoDelta?
    /// Speed (m/s) and gyro readings up to this frame, for the mount calibrator
    /// (`DriveDirectory.mountMotion(at:)`).
    public var motion: MotionSample?
    /// When the frame was decoded, on `MonotonicClock` (live sources; nil for files read as fast
    /// as the engine goes).
    public var arrival: Double?
    /// Frames decoded but never delivered since the previous delivered frame: the real-time rule
    /// drops all but the newest.
    public var dropped = 0
    /// The decoder flagged this frame as damaged: a run skips it unless told to keep it.
    public var corrupt = false
    /// Seconds without frames before this one while the source reconnected, when it did.
    public var gap: Double?

    /// Creates a frame.
    public init(
        name: String, image: RGBImage, timestamp: Double, intrinsics: CameraIntrinsics? = nil, ego: EgoDelta? = nil,
        motion: MotionSample? = nil
    ) {
        self.name = name
        self.image = image
        self.timestamp = timestamp
        self.intrinsics = intrinsics
        self.ego = ego
        self.motion = motion
    }
}

/// Where a run gets its frames: a drive directory, a video file, a raw video stream, a camera or a
/// network stream.
public protocol FrameSource {
    /// Number of frames, when known in advance.
    var count: Int? { get }
    /// Whether frames arrive at their own pace (a camera, a stream, a file played in real time):
    /// then the source keeps only the newest frame and drops the rest.
    var isLive: Bool { get }
    /// The next frame, or `nil` at the end (or, for a live source, once a stop is requested).
    mutating func next() throws -> SourceFrame?
    /// Frames decoded but not delivered after the last delivered one, when the run ends.
    var undelivered: Int { get }
    /// Times the source was lost and reopened.
    var reconnects: Int { get }
}

extension FrameSource {
    /// Files and drives are read at the engine's pace.
    public var isLive: Bool { false }
    /// A source read at the engine's pace leaves nothing behind.
    public var undelivered: Int { 0 }
    /// Files are not reopened.
    public var reconnects: Int { 0 }
}
