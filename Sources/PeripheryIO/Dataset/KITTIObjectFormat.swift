import Foundation
import PeripheryCore
import PeripheryGeometry

/// The KITTI object-detection layout, so that common tools read the synthetic datasets:
///
/// ```
/// DIR/image_2/NNNNNN.png   the frame (a hard link to images/NNNNNN.png when both exist)
/// DIR/label_2/NNNNNN.txt   type truncated occluded alpha x1 y1 x2 y2 h w l x y z rotation_y
/// DIR/calib/NNNNNN.txt     P0..P3, R0_rect, Tr_velo_to_cam, Tr_imu_to_velo
/// DIR/mount.json           where the vehicle frame is (`KITTIMount`)
/// ```
///
/// KITTI's "velodyne" frame is the vehicle frame (both x forward, y left, z up). The rectified
/// camera frame is placed at the camera centre with level axes (x = −y, y = −z, z = x of the
/// vehicle), so boxes stand upright in it and `rotation_y` is exact for any mount; the mount's
/// rotation goes into P2, which is therefore `K·S·R·Sᵀ` rather than upper triangular (projections
/// through the full matrices are exact). Classes map light → `Car`, large → `Truck`,
/// two-wheeler → `Cyclist`; `occluded` is 0 below 10 % occlusion, 1 below 50 %, else 2. A vehicle
/// visible in the frame but not in the detector's crop is written as `DontCare`, with its 3-D box.
/// Boxes are written with nine decimals, so that they read back to a nanometre; `mount.json` says
/// `{"vehicle_frame": "velodyne"}`, as the mount changes from frame to frame.
public enum KITTIObjectFormat {
    /// KITTI type names of the vehicle classes, by label.
    public static let typeNames = ["Car", "Truck", "Cyclist", "Pedestrian"]

    /// Vehicle frame → level camera axes at the camera (`S`, the sensor-to-image permutation).
    package static let levelAxes = CoordinateFrames.sensorToImageAxes

    /// The `calib` file of a camera.
    public static func calibText(_ setup: CameraSetup) -> String {
        let k = setup.intrinsics.matrix
        let rotation = k * CoordinateFrames.sensorToImageAxes * setup.pose.vehicleToSensorRotation * levelAxes.transposed
        let p2 = rotation.rowMajor.map { $0 + [0] }
        let centre = levelAxes * setup.pose.cameraCentre
        let velo = levelAxes.rowMajor.enumerated().map { i, row in row + [-[centre.x, centre.y, centre.z][i]] }
        let identity = Matrix3.identity.rowMajor
        func line(_ name: String, _ rows: [[Double]]) -> String {
            name + ": " + rows.flatMap { $0 }.map { String(format: "%.12e", $0) }.joined(separator: " ")
        }
        return [
            line("P0", p2), line("P1", p2), line("P2", p2), line("P3", p2), line("R0_rect", identity),
            line("Tr_velo_to_cam", velo), line("Tr_imu_to_velo", identity.map { $0 + [0] }),
        ].joined(separator: "\n") + "\n"
    }

    /// KITTI type names read as our labels; `Misc` and other types are not Safety40 classes.
    public static let readLabels = ["Car": 0, "Van": 0, "Truck": 1, "Tram": 1, "Cyclist": 2, "Pedestrian": 3, "Person_sitting": 3]

    /// One line of a `label_2` file.
    public struct Object: Sendable, Hashable {
        /// The KITTI type (`Car`, `DontCare`, …).
        public var type: String
        /// The 3-D box in the vehicle frame; `nil` for a `DontCare` region without one.
        public var box: VehicleBox?
        /// The 2-D box (x1, y1, x2, y2), source pixels.
        public var rectangle: SIMD4<Double>
    }

    /// Reads a `label_2` file, boxes mapped from the rectified camera frame by `vehicleFromRectified`.
    ///
    /// - Throws: `DriveError.unreadable` naming the file, line and field.
    public static func readObjects(label path: String, vehicleFromRectified: RigidTransform) throws(DriveError) -> [Object] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read the file") }
        var objects: [Object] = []
        for (i, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.isEmpty { continue }
            guard fields.count >= 15 else {
                throw .unreadable(path: path, reason: "line \(i + 1): \(fields.count) fields, a KITTI label has 15")
            }
            let values = fields[1..<15].map { Double($0) }
            let names = ["truncated", "occluded", "alpha", "x1", "y1", "x2", "y2", "h", "w", "l", "x", "y", "z", "rotation_y"]
            if let bad = values.firstIndex(where: { $0 == nil || !($0 ?? .nan).isFinite }) {
                throw .unreadable(path: path, reason: "line \(i + 1): \(names[bad]) is not a finite number")
            }
            let v = values.compactMap { $0 }
            let type = String(fields[0])
            let (h, w, l) = (v[7], v[8], v[9])
            var object = Object(type: type, box: nil, rectangle: SIMD4(v[3], v[4], v[5], v[6]))
            if type == "DontCare" && !(h > 0 && w > 0 && l > 0) {
                objects.append(object)
                continue
            }
            guard h > 0, w > 0, l > 0 else { throw .unreadable(path: path, reason: "line \(i + 1): h, w and l must be positive") }
            // The label's location is the bottom centre; rotation_y turns the box's forward axis
            // (rectified x) towards −z.
            let t = vehicleFromRectified
            let centre = t.rotation * SIMD3(v[10], v[11] - h / 2, v[12]) + t.translation
            let heading = t.rotation * SIMD3(cos(v[13]), 0, -sin(v[13]))
            object.box = VehicleBox(x: centre.x, y: centre.y, z: centre.z, length: l, width: w, height: h, yaw: atan2(heading.y, heading.x))
            objects.append(object)
        }
        return objects
    }

    /// Reads a `label_2` file as vehicle-frame truth through the `Tr_velo_to_cam` and `R0_rect` of
    /// its `calib` file (the velodyne frame is the vehicle frame, as `periphery synth --kitti`
    /// writes). Types that are not Safety40 classes are skipped; `DontCare` lines with a 3-D box
    /// become don't-care boxes, those without one (KITTI's own, with −1 sizes) mark image regions
    /// only and are skipped here.
    ///
    /// - Throws: `DriveError.unreadable` naming the file, line and field.
    public static func readLabels(label path: String, calib calibPath: String) throws(DriveError) -> GroundTruth {
        let toVehicle = try vehicleFromRectified(try readCalib(calibPath), mount: .velodyne, path: calibPath)
        var truth = GroundTruth(vehicles: [])
        for object in try readObjects(label: path, vehicleFromRectified: toVehicle) {
            guard let box = object.box else { continue }
            if object.type == "DontCare" {
                truth.dontCare.append(GroundTruthBox(label: -1, box: box))
            } else if let label = readLabels[object.type] {
                truth.vehicles.append(GroundTruthBox(label: label, box: box))
            }
        }
        return truth
    }

    package static func wrap(_ a: Double) -> Double { a - 2 * .pi * ((a + .pi) / (2 * .pi)).rounded(.down) }
}
