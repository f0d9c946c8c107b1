/// Fixed transforms between the grid, vehicle, sensor and image frames.
///
/// - Grid: the training frame of the voxel grid and anchors (x lateral right, y forward, z up,
///   z offset by the released virtual frame).
/// - Vehicle / sensor: ISO 8855 — x forward, y left, z up, metres.
/// - Image: x right, y down, z forward (optical).
public enum CoordinateFrames {
    /// Forward offset added to grid y to get vehicle x, metres.
    static let gridToVehicleForward = 0.944
    /// The released virtual frame's z offset added to grid z to get vehicle z, metres.
    ///
    /// Not a camera height: the training labels subtracted the same constant, so decoding with it
    /// returns z in the label frame.
    static let gridToVehicleUp = 1.840

    /// `GRID_TO_VEHICLE`: vehicle x = gy + 0.944, y = −gx, z = gz + 1.840.
    public static let gridToVehicle = RigidTransform(
        rotation: Matrix3(rows: SIMD3(0, 1, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, 1)),
        translation: SIMD3(gridToVehicleForward, 0, gridToVehicleUp))

    /// `SENSOR_TO_IMAGE_AXES`: image = (−y_s, −z_s, x_s). A signed permutation, so its inverse is
    /// its transpose.
    public static let sensorToImageAxes = Matrix3(rows: SIMD3(0, -1, 0), SIMD3(0, 0, -1), SIMD3(1, 0, 0))
}
