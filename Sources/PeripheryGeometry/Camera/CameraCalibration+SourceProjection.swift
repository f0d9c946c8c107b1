import PeripheryCore

extension CameraCalibration {
    /// Pixel of a vehicle-frame point in the source image, or `nil` if it is not in front of the
    /// camera (depth ≤ 1e-6).
    public func sourcePoint(_ vehiclePoint: SIMD3<Double>) -> SIMD2<Double>? {
        let h = sourceCamera * (vehiclePoint - setup.pose.cameraCentre)
        guard h.z > 1e-6 else { return nil }
        return SIMD2(h.x / h.z, h.y / h.z)
    }

    /// Vanishing point of a vehicle-frame direction in the source image, or `nil` if the direction
    /// does not point in front of the camera (depth ≤ 1e-9).
    public func sourceVanishingPoint(_ direction: SIMD3<Double>) -> SIMD2<Double>? {
        CameraCalibration.vanishingPoint(direction, camera: sourceCamera)
    }

    /// Vanishing point of a vehicle-frame direction in the 512 × 256 network input.
    func networkVanishingPoint(_ direction: SIMD3<Double>) -> SIMD2<Double>? {
        CameraCalibration.vanishingPoint(
            direction, camera: networkIntrinsics * CoordinateFrames.sensorToImageAxes * sensorFromVehicle.rotation)
    }

    /// `K · S · R`: vehicle directions to homogeneous source pixels.
    package var sourceCamera: Matrix3 {
        setup.intrinsics.matrix * CoordinateFrames.sensorToImageAxes * sensorFromVehicle.rotation
    }

    static func vanishingPoint(_ direction: SIMD3<Double>, camera: Matrix3) -> SIMD2<Double>? {
        let h = camera * direction
        guard h.z > 1e-9 else { return nil }
        return SIMD2(h.x / h.z, h.y / h.z)
    }

    /// Lines on the road drawn in the source image, to check a calibration by eye.
    ///
    /// - Parameters:
    ///   - ranges: forward distances of the range ladder, metres.
    ///   - halfWidth: half the length of each ladder rung, metres.
    public func groundGuides(ranges: [Double] = [10, 20, 30, 40], halfWidth: Double = 6.0) -> GroundGuides {
        let rungs = ranges.compactMap { r -> GroundGuides.Rung? in
            guard let left = sourcePoint(SIMD3(r, halfWidth, 0)),
                let right = sourcePoint(SIMD3(r, -halfWidth, 0))
            else { return nil }
            return GroundGuides.Rung(range: r, segment: ImageSegment(start: left, end: right))
        }
        return GroundGuides(horizon: horizon(), rungs: rungs)
    }

    /// The horizon through the forward vanishing point, extended ±2 frame widths along it.
    ///
    /// The reference draws it through the vanishing points of (1, 0, 0) and (0, 1, 0); the lateral
    /// one is at infinity whenever yaw is 0, so the direction is taken from its homogeneous
    /// coordinates instead, which is the same line and always defined.
    func horizon() -> ImageSegment? {
        guard let forward = sourceVanishingPoint(SIMD3(1, 0, 0)) else { return nil }
        let lateral = sourceCamera * SIMD3(0, 1, 0)
        // Direction of the line joining `forward` to the lateral point (finite or at infinity).
        var direction = SIMD2(lateral.x - forward.x * lateral.z, lateral.y - forward.y * lateral.z)
        let norm = (direction * direction).sum().squareRoot()
        guard norm > 0 else { return nil }
        direction /= norm
        if direction.x < 0 { direction = -direction }
        let reach = 2 * Double(setup.intrinsics.width)
        return ImageSegment(start: forward - reach * direction, end: forward + reach * direction)
    }
}

/// A straight segment in image pixels.
public struct ImageSegment: Sendable, Hashable {
    /// First endpoint.
    public var start: SIMD2<Double>
    /// Second endpoint.
    public var end: SIMD2<Double>

    /// Creates a segment from its endpoints.
    public init(start: SIMD2<Double>, end: SIMD2<Double>) {
        self.start = start
        self.end = end
    }
}

/// Road-plane guide lines in source pixels: the horizon and a range ladder.
public struct GroundGuides: Sendable, Hashable {
    /// One rung of the ladder: the road segment from (range, +halfWidth, 0) to (range, −halfWidth, 0).
    public struct Rung: Sendable, Hashable {
        /// Forward distance, metres.
        public var range: Double
        /// From the left end to the right end.
        public var segment: ImageSegment
    }

    /// The horizon from left to right, or `nil` if the camera does not face forward.
    public var horizon: ImageSegment?
    /// Rungs in front of the camera, in the order of the requested ranges.
    public var rungs: [Rung]
}
