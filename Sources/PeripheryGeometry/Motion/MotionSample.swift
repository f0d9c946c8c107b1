/// What the vehicle's sensors read up to one camera frame, as `MountCalibrator` takes it: the speed
/// then and the gyro readings since the previous frame.
public struct MotionSample: Sendable, Hashable {
    /// Speed, m/s; nil when unknown (the calibrator's speed gate then refuses the frame).
    public var speed: Double?
    /// Gyro readings in time order.
    public var gyro: [GyroSample]

    /// Creates a sample.
    public init(speed: Double?, gyro: [GyroSample]) {
        self.speed = speed
        self.gyro = gyro
    }
}
