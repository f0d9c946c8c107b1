import Foundation
import PeripheryCore
import PeripheryGeometry

/// The Cityscapes 3D layout (docs/guides/training.md §6):
///
/// ```
/// DIR/leftImg8bit/<split>/<city>/<city>_<seq>_<frame>_leftImg8bit.png   the frame
/// DIR/camera/<split>/<city>/<city>_<seq>_<frame>_camera.json            intrinsics and mount
/// DIR/gtBbox3d/<split>/<city>/<city>_<seq>_<frame>_gtBbox3d.json        sensor block and 3-D boxes
/// ```
///
/// Cityscapes' vehicle frame is ISO 8855, as ours; `camera.json`'s extrinsics give the camera →
/// vehicle rotation Rz(yaw) · Ry(pitch) · Rx(roll) and the camera position (x, y, z), so the mount is
/// pitch −pitch (ours is nose-up), roll, yaw, height z, forward x, lateral y. Boxes carry their centre,
/// dimensions (length, width, height) and a rotation quaternion (w, x, y, z) in that frame.
public enum CityscapesBox3DFormat {
    /// Cityscapes 3D labels read as our classes.
    public static let readLabels = [
        "car": 0, "truck": 1, "bus": 1, "train": 1, "caravan": 1, "trailer": 1, "motorcycle": 2, "bicycle": 2, "person": 3, "rider": 3,
    ]
    /// Our labels written as Cityscapes labels, by label.
    public static let labelNames = ["car", "truck", "bicycle", "person"]

    /// How far the `camera.json` mount may differ from the `gtBbox3d` sensor block: a different
    /// angle convention misses by far more.
    static let sensorTolerance = (rotation: 0.01, translation: 0.05, pixels: 0.5)

    /// One object of a `gtBbox3d` file.
    public struct Object: Sendable, Hashable {
        /// The Cityscapes label (`car`, `bicycle`, …).
        public var label: String
        /// The box in the vehicle frame, yaw from the quaternion's heading.
        public var box: VehicleBox
        /// The modal (visible) 2-D box (x1, y1, x2, y2), source pixels, when the file has one.
        public var modal: SIMD4<Double>?
        /// Whether the object is in the detector's view, when the file says (`periphery synth`
        /// writes it); otherwise the view rule decides.
        public var inView: Bool?
    }

    /// The camera of a `camera.json` for frames of `width` × `height` pixels.
    ///
    /// - Throws: `DriveError.unreadable` naming the file and field.
    public static func readCamera(path: String, width: Int, height: Int) throws(DriveError) -> CameraSetup {
        let root = try jsonObject(path)
        let extrinsic = try object(root, "extrinsic", path), intrinsic = try object(root, "intrinsic", path)
        func value(_ o: [String: Any], _ name: String, _ key: String) throws(DriveError) -> Double {
            guard let n = o[key] as? NSNumber, n.doubleValue.isFinite else {
                throw .unreadable(path: path, reason: "\(name).\(key) must be a finite number")
            }
            return n.doubleValue
        }
        let pose = MountPose(
            pitch: -(try value(extrinsic, "extrinsic", "pitch")), roll: try value(extrinsic, "extrinsic", "roll"),
            yaw: try value(extrinsic, "extrinsic", "yaw"), height: try value(extrinsic, "extrinsic", "z"),
            forwardOfOrigin: try value(extrinsic, "extrinsic", "x"), lateralOffset: try value(extrinsic, "extrinsic", "y"))
        guard pose.isPlausible else {
            throw .unreadable(path: path, reason: "extrinsic: the mount is outside the plausible range of docs/reference/geometry.md")
        }
        let (fx, fy) = (try value(intrinsic, "intrinsic", "fx"), try value(intrinsic, "intrinsic", "fy"))
        let (cx, cy) = (try value(intrinsic, "intrinsic", "u0"), try value(intrinsic, "intrinsic", "v0"))
        do {
            return CameraSetup(intrinsics: try CameraIntrinsics(fx: fx, fy: fy, cx: cx, cy: cy, width: width, height: height), pose: pose)
        } catch {
            throw .invalidCamera(path: path, field: "intrinsic", error)
        }
    }

    /// A `gtBbox3d` file, parsed once for its image size and its objects.
    public struct BoxFile {
        let path: String
        let root: [String: Any]

        /// Reads and parses the file.
        ///
        /// - Throws: `DriveError.unreadable` when it cannot be read or is not a JSON object.
        public init(path: String) throws(DriveError) {
            self.path = path
            root = try jsonObject(path)
        }

        /// The image size the file states (`imgWidth`, `imgHeight`), if it does.
        public var imageSize: (width: Int, height: Int)? {
            guard let w = root["imgWidth"] as? Int, let h = root["imgHeight"] as? Int else { return nil }
            return (w, h)
        }

        /// The file's objects, after checking its sensor block against `camera`.
        ///
        /// - Throws: `DriveError.unreadable` naming the file and field (`objects[2].3d.center`).
        public func objects(camera: CameraSetup) throws(DriveError) -> [Object] {
            try readObjects(root, path: path, camera: camera)
        }
    }

    static func readObjects(_ root: [String: Any], path: String, camera: CameraSetup) throws(DriveError) -> [Object] {
        if let sensor = root["sensor"] as? [String: Any] { try checkSensor(sensor, camera: camera, path: path) }
        guard let objects = root["objects"] as? [[String: Any]] else { throw .unreadable(path: path, reason: "no 'objects' array") }
        return try objects.enumerated().map { (i, o) throws(DriveError) in
            let name = "objects[\(i)]"
            guard let label = o["label"] as? String else { throw .unreadable(path: path, reason: "\(name).label must be a string") }
            guard let box3d = o["3d"] as? [String: Any] else { throw .unreadable(path: path, reason: "\(name).3d is missing") }
            if let format = box3d["format"], format as? String != "CRS_ISO8855" {
                throw .unreadable(path: path, reason: "\(name).3d.format must be CRS_ISO8855")
            }
            let centre = try numbers(box3d["center"], count: 3, "\(name).3d.center", path)
            let size = try numbers(box3d["dimensions"], count: 3, "\(name).3d.dimensions", path)
            let q = try numbers(box3d["rotation"], count: 4, "\(name).3d.rotation", path)
            guard size.allSatisfy({ $0 > 0 }) else { throw .unreadable(path: path, reason: "\(name).3d.dimensions must be positive") }
            let norm = q.map { $0 * $0 }.reduce(0, +).squareRoot()
            guard norm > 1e-9 else { throw .unreadable(path: path, reason: "\(name).3d.rotation is not a rotation") }
            let (w, x, y, z) = (q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm)
            // The box's forward axis, the first column of the quaternion's rotation matrix.
            let heading = SIMD2(1 - 2 * (y * y + z * z), 2 * (x * y + w * z))
            var modal: SIMD4<Double>?
            if let twoD = o["2d"] as? [String: Any], let m = twoD["modal"] {
                let r = try numbers(m, count: 4, "\(name).2d.modal", path)
                modal = SIMD4(r[0], r[1], r[0] + r[2], r[1] + r[3])
            }
            var inView: Bool?
            if let flag = o["in_view"] {
                guard let value = flag as? Bool else { throw .unreadable(path: path, reason: "\(name).in_view must be true or false") }
                inView = value
            }
            return Object(
                label: label,
                box: VehicleBox(x: centre[0], y: centre[1], z: centre[2], length: size[0], width: size[1], height: size[2], yaw: atan2(heading.y, heading.x)),
                modal: modal, inView: inView)
        }
    }

    /// The `sensor_T_ISO_8855` and intrinsics of the sensor block must describe the same camera.
    static func checkSensor(_ sensor: [String: Any], camera: CameraSetup, path: String) throws(DriveError) {
        let t = try numbers((sensor["sensor_T_ISO_8855"] as? [Any])?.flatMap { ($0 as? [Any]) ?? [] }, count: 12, "sensor.sensor_T_ISO_8855", path)
        let ours = camera.pose.sensorFromVehicle
        let rows = [ours.rotation.row0, ours.rotation.row1, ours.rotation.row2]
        let tol = sensorTolerance
        for r in 0..<3 {
            for c in 0..<3 where abs(t[4 * r + c] - rows[r][c]) > tol.rotation {
                throw .unreadable(path: path, reason: "sensor.sensor_T_ISO_8855 disagrees with the camera file's extrinsic (rotation)")
            }
            if abs(t[4 * r + 3] - ours.translation[r]) > tol.translation {
                throw .unreadable(path: path, reason: "sensor.sensor_T_ISO_8855 disagrees with the camera file's extrinsic (translation)")
            }
        }
        let k = camera.intrinsics
        for (key, value) in [("fx", k.fx), ("fy", k.fy), ("u0", k.cx), ("v0", k.cy)] {
            if let n = sensor[key] as? NSNumber, !(abs(n.doubleValue - value) <= tol.pixels) {
                throw .unreadable(path: path, reason: "sensor.\(key) \(n.doubleValue) disagrees with the camera file's \(value)")
            }
        }
    }

    static func jsonObject(_ path: String) throws(DriveError) -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read the file") }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .unreadable(path: path, reason: "not a JSON object")
        }
        return root
    }

    static func object(_ root: [String: Any], _ key: String, _ path: String) throws(DriveError) -> [String: Any] {
        guard let o = root[key] as? [String: Any] else { throw .unreadable(path: path, reason: "'\(key)' must be an object") }
        return o
    }

    static func numbers(_ value: Any?, count: Int, _ field: String, _ path: String) throws(DriveError) -> [Double] {
        guard let array = value as? [Any], array.count == count else {
            throw .unreadable(path: path, reason: "\(field) must be \(count) numbers")
        }
        var result: [Double] = []
        for item in array {
            guard let n = item as? NSNumber, n.doubleValue.isFinite else {
                throw .unreadable(path: path, reason: "\(field) must be \(count) finite numbers")
            }
            result.append(n.doubleValue)
        }
        return result
    }
}
