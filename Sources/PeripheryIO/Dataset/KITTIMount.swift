import Foundation
import PeripheryCore
import PeripheryGeometry

/// Where a KITTI dataset's vehicle frame lies (docs/guides/training.md §6). KITTI's files give the camera
/// relative to its rectified frame, not to the road, so the mount comes from the user.
public enum KITTIMount: Sendable, Hashable {
    /// The rectified camera frame is a camera with this mount (KITTI's own rig: about 1.65 m above
    /// the road, level).
    case rectifiedCamera(MountPose)
    /// `Tr_velo_to_cam` maps the vehicle frame itself: what `periphery synth --kitti` writes, whose
    /// mounts change from frame to frame.
    case velodyne

    /// The file name of a dataset's mount, in its root.
    public static let fileName = "mount.json"

    /// The mount of the KITTI dataset at `root`: `height` and `pitchDegrees` when given (the rest
    /// from `mount.json` when it exists, else zero), otherwise `root/mount.json`, which holds either
    /// `{"vehicle_frame": "velodyne"}` or the rectified frame's mount in the calibration file's
    /// names (`height_m` required; `pitch_deg`, `roll_deg`, `yaw_deg`, `forward_of_origin_m`,
    /// `lateral_offset_m` default to 0).
    ///
    /// - Throws: `DriveError.unreadable` naming `mount.json` and the field, or saying that the mount
    ///   is missing.
    public static func load(root: String, height: Double?, pitchDegrees: Double?) throws(DriveError) -> KITTIMount {
        let path = root + "/" + fileName
        var fields: [String: Any] = [:]
        if let data = FileManager.default.contents(atPath: path) {
            guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                throw .unreadable(path: path, reason: "not a JSON object")
            }
            fields = object
        } else if height == nil {
            throw .unreadable(
                path: root, reason: "a KITTI dataset needs the camera's mount: --mount-height M [--mount-pitch DEG] or \(fileName)")
        }
        if height == nil, pitchDegrees == nil, let frame = fields["vehicle_frame"] {
            guard frame as? String == "velodyne" else { throw .unreadable(path: path, reason: "vehicle_frame must be \"velodyne\"") }
            return .velodyne
        }
        func number(_ key: String, _ override: Double?, required: Bool = false) throws(DriveError) -> Double {
            if let override { return override }
            guard let value = fields[key] else {
                if required { throw .unreadable(path: path, reason: "\(key) is missing") }
                return 0
            }
            guard let n = value as? NSNumber, n.doubleValue.isFinite else { throw .unreadable(path: path, reason: "\(key) must be a finite number") }
            return n.doubleValue
        }
        let pose = MountPose(
            pitchDegrees: try number("pitch_deg", pitchDegrees), rollDegrees: try number("roll_deg", nil),
            yawDegrees: try number("yaw_deg", nil), height: try number("height_m", height, required: true),
            forwardOfOrigin: try number("forward_of_origin_m", nil), lateralOffset: try number("lateral_offset_m", nil))
        guard pose.isPlausible else {
            throw .unreadable(
                path: height == nil ? path : root, reason: "the mount (height \(pose.height) m) is outside the plausible range of docs/reference/geometry.md")
        }
        return .rectifiedCamera(pose)
    }
}
