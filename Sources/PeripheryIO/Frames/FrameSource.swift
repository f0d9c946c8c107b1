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
    public var motion: (speed: Double?, gyro: [GyroSample])?

    /// Creates a frame.
    public init(
        name: String, image: RGBImage, timestamp: Double, intrinsics: CameraIntrinsics? = nil, ego: EgoDelta? = nil,
        motion: (speed: Double?, gyro: [GyroSample])? = nil
    ) {
        self.name = name
        self.image = image
        self.timestamp = timestamp
        self.intrinsics = intrinsics
        self.ego = ego
        self.motion = motion
    }
}

/// Where a run gets its frames: a drive directory or a raw video stream.
public protocol FrameSource {
    /// Number of frames, when known in advance.
    var count: Int? { get }
    /// The next frame, or `nil` at the end.
    mutating func next() throws -> SourceFrame?
}
