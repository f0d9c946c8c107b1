/// When a changed camera setup needs a new calibration and ProjectionLUT (reference, `docs/reference/contract.md#47-when-to-rebuild`).
///
/// Rebuilding costs a LUT build per frame, and angle noise below ~0.03° moves no voxel, so small
/// changes are ignored.
package enum RebuildPolicy {
    /// Angle change (pitch, roll or yaw) that triggers a rebuild, radians (~0.03°).
    static let angleThreshold = 0.0005
    /// Height or lateral offset change that triggers a rebuild, metres.
    static let distanceThreshold = 0.005

    /// Whether moving from `old` to `new` requires rebuilding.
    ///
    /// True if pitch, roll or yaw moved by more than 0.0005 rad, height by more than 5 mm, fx
    /// changed at all, or the frame width changed. Lateral offset (not in the reference, where it is
    /// always 0) follows the height rule. Changes of forwardOfOrigin, cx or cy alone do not rebuild.
    package static func needsRebuild(old: CameraSetup, new: CameraSetup) -> Bool {
        let a = old.pose, b = new.pose
        return abs(a.pitch - b.pitch) > angleThreshold
            || abs(a.roll - b.roll) > angleThreshold
            || abs(a.yaw - b.yaw) > angleThreshold
            || abs(a.height - b.height) > distanceThreshold
            || abs(a.lateralOffset - b.lateralOffset) > distanceThreshold
            || old.intrinsics.fx != new.intrinsics.fx
            || old.intrinsics.width != new.intrinsics.width
    }
}
