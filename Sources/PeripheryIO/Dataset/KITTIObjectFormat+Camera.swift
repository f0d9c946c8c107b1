import Foundation
import PeripheryCore
import PeripheryGeometry

/// The camera and the vehicle frame of a KITTI `calib` file.
extension KITTIObjectFormat {
    /// The numbers of a `calib` file that place the camera.
    struct Calib {
        /// P2, the left colour camera's 3 × 4 projection of rectified points: its 3 × 3 part and last column.
        var projection: Matrix3
        var projectionColumn: SIMD3<Double>
        /// R0_rect: reference camera → rectified frame.
        var rectification: Matrix3
        /// Tr_velo_to_cam: velodyne → reference camera.
        var veloToCamera: RigidTransform?
    }

    static func readCalib(_ path: String) throws(DriveError) -> Calib {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read the file") }
        var rows: [String: [Double]] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let values = line[line.index(after: colon)...].split(separator: " ").map { Double($0) }
            if let bad = values.firstIndex(where: { !($0 ?? .nan).isFinite }) {
                throw .unreadable(path: path, reason: "\(name) value \(bad + 1) is not a finite number")
            }
            rows[name] = values.compactMap { $0 }
        }
        func matrix(_ name: String, count: Int) throws(DriveError) -> [Double] {
            guard let v = rows[name] else { throw .unreadable(path: path, reason: "no \(name) line") }
            guard v.count == count else { throw .unreadable(path: path, reason: "\(name) has \(v.count) numbers, not \(count)") }
            return v
        }
        let p = try matrix("P2", count: 12)
        let r = try matrix("R0_rect", count: 9)
        var velo: RigidTransform?
        if rows["Tr_velo_to_cam"] != nil {
            let t = try matrix("Tr_velo_to_cam", count: 12)
            velo = RigidTransform(
                rotation: Matrix3(rows: SIMD3(t[0], t[1], t[2]), SIMD3(t[4], t[5], t[6]), SIMD3(t[8], t[9], t[10])),
                translation: SIMD3(t[3], t[7], t[11]))
        }
        return Calib(
            projection: Matrix3(rows: SIMD3(p[0], p[1], p[2]), SIMD3(p[4], p[5], p[6]), SIMD3(p[8], p[9], p[10])),
            projectionColumn: SIMD3(p[3], p[7], p[11]),
            rectification: Matrix3(rows: SIMD3(r[0], r[1], r[2]), SIMD3(r[3], r[4], r[5]), SIMD3(r[6], r[7], r[8])),
            veloToCamera: velo)
    }

    /// Rectified camera frame → vehicle frame (`vehicle = rotation · rectified + translation`).
    static func vehicleFromRectified(_ calib: Calib, mount: KITTIMount, path: String) throws(DriveError) -> RigidTransform {
        switch mount {
        case .rectifiedCamera(let pose):
            // rectified = S · R · (vehicle − c)
            return RigidTransform(rotation: (CoordinateFrames.sensorToImageAxes * pose.vehicleToSensorRotation).transposed, translation: pose.cameraCentre)
        case .velodyne:
            guard let velo = calib.veloToCamera else {
                throw .unreadable(path: path, reason: "no Tr_velo_to_cam line (mount.json says vehicle_frame velodyne)")
            }
            let a = calib.rectification * velo.rotation
            guard abs(a.determinant - 1) < 1e-6 else { throw .unreadable(path: path, reason: "R0_rect · Tr_velo_to_cam is not a rotation") }
            let inverse = a.transposed
            return RigidTransform(rotation: inverse, translation: -(inverse * (calib.rectification * velo.translation)))
        }
    }

    /// The camera of a `calib` file for frames of `width` × `height` pixels, and the map from its
    /// rectified frame, where the labels are, to the vehicle frame.
    ///
    /// P2's 3 × 3 part is split into intrinsics and a rotation (an RQ decomposition), so P2 need not
    /// be upper triangular; its last column places the camera in the rectified frame.
    ///
    /// - Throws: `DriveError.unreadable` naming the file and the line, or the implausible value.
    public static func readCamera(
        calib path: String, width: Int, height: Int, mount: KITTIMount
    ) throws(DriveError) -> (setup: CameraSetup, vehicleFromRectified: RigidTransform) {
        let calib = try readCalib(path)
        let toVehicle = try vehicleFromRectified(calib, mount: mount, path: path)
        let m = calib.projection
        // M = K · Q, K upper triangular with a positive diagonal, Q a rotation: rows from the bottom.
        func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }
        let k22 = dot(m.row2, m.row2).squareRoot(), q2 = m.row2 / k22
        let k12 = dot(m.row1, q2), u1 = m.row1 - k12 * q2, k11 = dot(u1, u1).squareRoot(), q1 = u1 / k11
        let k02 = dot(m.row0, q2), k01 = dot(m.row0, q1), u0 = m.row0 - k02 * q2 - k01 * q1
        let k00 = dot(u0, u0).squareRoot(), q0 = u0 / k00
        let q = Matrix3(rows: q0, q1, q2)
        guard [k00, k11, k22].allSatisfy({ $0 > 1e-12 && $0.isFinite }), abs(q.determinant - 1) < 1e-6 else {
            throw .unreadable(path: path, reason: "P2 is not the projection of a camera")
        }
        // Camera centre in the rectified frame: M · c + column = 0, c = −Qᵀ · K⁻¹ · column.
        let column = calib.projectionColumn
        let z = column.z / k22, y = (column.y - k12 * z) / k11, x = (column.x - k01 * y - k02 * z) / k00
        let centre = -(q.transposed * SIMD3(x, y, z))
        let fx = k00 / k22, skew = k01 / k22
        let intrinsics: CameraIntrinsics
        do {
            // A skew below 1e-9 of the focal length is the decomposition's rounding, not the camera's.
            intrinsics = try CameraIntrinsics(
                fx: fx, fy: k11 / k22, cx: k02 / k22, cy: k12 / k22, skew: abs(skew) < 1e-9 * fx ? 0 : skew, width: width, height: height)
        } catch {
            throw .invalidCamera(path: path, field: "P2", error)
        }
        // vehicle → image axes = Q · (vehicle → rectified); the sensor frame is Sᵀ of the image axes.
        let rotation = CoordinateFrames.sensorToImageAxes.transposed * q * toVehicle.rotation.transposed
        let pose = MountPose(vehicleToSensor: rotation, cameraCentre: toVehicle.rotation * centre + toVehicle.translation)
        guard pose.isPlausible else {
            throw .unreadable(
                path: path,
                reason: String(
                    format: "the camera's mount (pitch %.2f°, roll %.2f°, yaw %.2f°, height %.3f m, forward %.3f m) is implausible",
                    pose.pitch * 180 / .pi, pose.roll * 180 / .pi, pose.yaw * 180 / .pi, pose.height, pose.forwardOfOrigin))
        }
        return (CameraSetup(intrinsics: intrinsics, pose: pose), toVehicle)
    }
}
