/// What the vehicle's sensors read up to one camera frame: the speed then, and the gyro and
/// gravity readings since the previous frame (`MountCalibrator` takes the speed and the gyro,
/// `BodyPitchFilter` the gyro and gravity).
public struct MotionSample: Sendable, Hashable {
    /// Speed, m/s; nil when unknown (the calibrator's speed gate then refuses the frame).
    public var speed: Double?
    /// Gyro readings in time order.
    public var gyro: [GyroSample]
    /// Gravity readings in time order, device axes, in g.
    public var gravity: [GravitySample]

    /// Creates a sample.
    public init(speed: Double?, gyro: [GyroSample], gravity: [GravitySample] = []) {
        self.speed = speed
        self.gyro = gyro
        self.gravity = gravity
    }
}

/// One gravity reading: time (s, the frames' clock) and the gravity vector in device axes (g).
public struct GravitySample: Sendable, Hashable {
    /// Time, seconds.
    public var t: Double
    /// Gravity, device axes, g.
    public var g: SIMD3<Double>

    /// Creates a reading.
    public init(t: Double, g: SIMD3<Double>) {
        self.t = t
        self.g = g
    }
}
