import Foundation
import PeripheryCore
import PeripheryGeometry

/// The KITTI object-detection layout, so that common tools read the synthetic datasets:
///
/// ```
/// DIR/image_2/NNNNNN.png   the frame (a hard link to images/NNNNNN.png when both exist)
/// DIR/label_2/NNNNNN.txt   type truncated occluded alpha x1 y1 x2 y2 h w l x y z rotation_y
/// DIR/calib/NNNNNN.txt     P0..P3, R0_rect, Tr_velo_to_cam, Tr_imu_to_velo
/// ```
///
/// KITTI's "velodyne" frame is the vehicle frame (both x forward, y left, z up). The rectified
/// camera frame is placed at the camera centre with level axes (x = −y, y = −z, z = x of the
/// vehicle), so boxes stand upright in it and `rotation_y` is exact for any mount; the mount's
/// rotation goes into P2, which is therefore `K·S·R·Sᵀ` rather than upper triangular (projections
/// through the full matrices are exact). Classes map light → `Car`, large → `Truck`,
/// two-wheeler → `Cyclist`; `occluded` is 0 below 10 % occlusion, 1 below 50 %, else 2. A vehicle
/// visible in the frame but not in the detector's crop is written as `DontCare`, with its 3-D box.
public enum KITTIObjectFormat {
    /// KITTI type names of the vehicle classes, by label.
    public static let typeNames = ["Car", "Truck", "Cyclist", "Pedestrian"]

    /// Vehicle frame → level camera axes at the camera (`S`, the sensor-to-image permutation).
    package static let levelAxes = Frames.sensorToImageAxes

    /// The `calib` file of a camera.
    public static func calibText(_ setup: CameraSetup) -> String {
        let k = setup.intrinsics.matrix
        let rotation = k * Frames.sensorToImageAxes * setup.pose.vehicleToSensorRotation * levelAxes.transposed
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

    /// KITTI type names read as our labels.
    static let readLabels = ["Car": 0, "Van": 0, "Truck": 1, "Tram": 1, "Cyclist": 2, "Pedestrian": 3, "Person_sitting": 3]

    /// Reads a `label_2` file as vehicle-frame boxes through the `Tr_velo_to_cam` of its `calib`
    /// file. Unknown types are skipped; KITTI `Van` counts as light, `Tram` as large. `DontCare`
    /// lines with a 3-D box become don't-care boxes; those without one (KITTI's own, with −1 sizes)
    /// are skipped, as they mark image regions only.
    ///
    /// - Throws: `DriveError.unreadable` naming the file, line and field.
    public static func readLabels(label path: String, calib calibPath: String) throws(DriveError) -> FrameTruth {
        let velo = try readVeloToCam(calibPath)
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read the file") }
        var truth = FrameTruth(vehicles: [])
        for (i, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.isEmpty { continue }
            let isDontCare = fields[0] == "DontCare"
            guard let label = isDontCare ? -1 : readLabels[String(fields[0])] else { continue }
            guard fields.count >= 15 else {
                throw .unreadable(path: path, reason: "line \(i + 1): \(fields.count) fields, a KITTI label has 15")
            }
            let values = fields[1 ..< 15].map { Double($0) }
            let names = ["truncated", "occluded", "alpha", "x1", "y1", "x2", "y2", "h", "w", "l", "x", "y", "z", "rotation_y"]
            if let bad = values.firstIndex(where: { $0 == nil || !($0 ?? .nan).isFinite }) {
                throw .unreadable(path: path, reason: "line \(i + 1): \(names[bad]) is not a finite number")
            }
            let v = values.compactMap { $0 }
            let (h, w, l) = (v[7], v[8], v[9])
            if isDontCare && !(h > 0 && w > 0 && l > 0) { continue }
            guard h > 0, w > 0, l > 0 else { throw .unreadable(path: path, reason: "line \(i + 1): h, w and l must be positive") }
            // camera = A·vehicle + t  →  vehicle = Aᵀ·(camera − t)
            let bottom = velo.rotation.transposed * (SIMD3(v[10], v[11], v[12]) - velo.translation)
            let heading = velo.rotation.transposed * SIMD3(cos(v[13]), 0, -sin(v[13]))
            let box = GroundTruthBox(label: label, box: VehicleBox(
                x: bottom.x, y: bottom.y, z: bottom.z + h / 2, length: l, width: w, height: h, yaw: atan2(heading.y, heading.x)))
            if isDontCare { truth.dontCare.append(box) } else { truth.vehicles.append(box) }
        }
        return truth
    }

    static func readVeloToCam(_ path: String) throws(DriveError) -> (rotation: Matrix3, translation: SIMD3<Double>) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read the file") }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Tr_velo_to_cam:") {
            let values = line.dropFirst("Tr_velo_to_cam:".count).split(separator: " ").compactMap { Double($0) }
            guard values.count == 12, values.allSatisfy(\.isFinite) else {
                throw .unreadable(path: path, reason: "Tr_velo_to_cam needs 12 finite numbers")
            }
            let m = Matrix3(rows: SIMD3(values[0], values[1], values[2]), SIMD3(values[4], values[5], values[6]), SIMD3(values[8], values[9], values[10]))
            return (m, SIMD3(values[3], values[7], values[11]))
        }
        throw .unreadable(path: path, reason: "no Tr_velo_to_cam line")
    }

    package static func wrap(_ a: Double) -> Double { a - 2 * .pi * ((a + .pi) / (2 * .pi)).rounded(.down) }
}
