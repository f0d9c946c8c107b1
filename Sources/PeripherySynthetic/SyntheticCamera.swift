import PeripheryCore
import PeripheryGeometry

/// Draws the camera and mount of a synthetic frame: the ranges a windshield phone camera covers,
/// with any of the mount angles, height or the frame size fixed by the caller.
public struct SyntheticCamera: Sendable, Hashable {
    /// Frame width, pixels.
    public var width: Int
    /// Frame height, pixels.
    public var height: Int
    /// Fixed mount values; `nil` ones are drawn per frame.
    public var pitchDegrees: Double?
    public var rollDegrees: Double?
    public var yawDegrees: Double?
    public var heightMetres: Double?
    /// The mount heights drawn when `heightMetres` is `nil`, metres: a windshield phone's by default;
    /// the structured world also draws the taller vans' and SUVs' (`SyntheticWorld.mountHeights`).
    public var heightRange: ClosedRange<Double> = SyntheticCamera.windshieldHeights

    /// A windshield phone's mount heights, metres: what the basic world draws.
    public static let windshieldHeights: ClosedRange<Double> = 1.0...1.6

    /// Creates a sampler for `width × height` frames.
    public init(
        width: Int = 640, height: Int = 400, pitchDegrees: Double? = nil, rollDegrees: Double? = nil,
        yawDegrees: Double? = nil, heightMetres: Double? = nil
    ) {
        self.width = width
        self.height = height
        self.pitchDegrees = pitchDegrees
        self.rollDegrees = rollDegrees
        self.yawDegrees = yawDegrees
        self.heightMetres = heightMetres
    }

    /// Intrinsics and mount for one frame.
    ///
    /// The focal length is drawn so that the focal-matched crop always fits the frame
    /// (`fx ≤ 565.6 · width / 512`, down to 55 % of that, i.e. fields of view from about 49° to 82°);
    /// the principal point sits within 2 % of the centre. Pitch −6…+3°, roll and yaw ±2°, height
    /// from `heightRange` (1.0–1.6 m unless set), camera 1.0–2.0 m ahead of the origin.
    public func draw(_ random: inout SyntheticRandom) throws(CalibrationError) -> CameraSetup {
        let widest = 565.6 * Double(width) / 512
        let f = widest * random.uniform(0.55, 1.0)
        let cx = Double(width) * random.uniform(0.49, 0.51), cy = Double(height) * random.uniform(0.49, 0.51)
        let intrinsics = try CameraIntrinsics(fx: f, fy: f, cx: cx, cy: cy, width: width, height: height)
        let pose = MountPose(
            pitchDegrees: pitchDegrees ?? random.uniform(-6, 3), rollDegrees: rollDegrees ?? random.uniform(-2, 2),
            yawDegrees: yawDegrees ?? random.uniform(-2, 2), height: heightMetres ?? random.uniform(heightRange.lowerBound, heightRange.upperBound),
            forwardOfOrigin: random.uniform(1.0, 2.0))
        return CameraSetup(intrinsics: intrinsics, pose: pose)
    }
}
