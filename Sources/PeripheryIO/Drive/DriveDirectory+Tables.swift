import Foundation
import PeripheryCore
import PeripheryGeometry

/// Reading the three CSV tables of a drive directory (`DriveDirectory.init`): rows that cannot be
/// used are appended to `skipped` with their line numbers; a missing required column is an error.
extension DriveDirectory {
    /// `frames.csv`: each row's pts and, when its K, width and height are valid, its camera.
    static func frameCameras(
        _ table: CSVTable?, path: String, skipped: inout [SkippedRow]
    ) throws(DriveError) -> [(pts: Double, intrinsics: CameraIntrinsics?)] {
        var cameras: [(pts: Double, intrinsics: CameraIntrinsics?)] = []
        if let table {
            skipped += table.skippedRows(in: path)
            let pts = try table.column("pts", in: path)
            let k = try ["k00", "k01", "k02", "k10", "k11", "k12", "k20", "k21", "k22"].map { name throws(DriveError) in
                try table.column(name, in: path)
            }
            let width = try table.column("width", in: path), height = try table.column("height", in: path)
            for row in table.rows {
                guard let t = DriveDirectory.number(row.fields, pts), t.isFinite else {
                    skipped.append(SkippedRow(path: path, line: row.line, reason: "pts is not a number"))
                    continue
                }
                // K may be blank when the camera reported none: the calibration file's then applies.
                var intrinsics: CameraIntrinsics?
                let values = k.compactMap { DriveDirectory.number(row.fields, $0) }
                if values.count == 9, let w = DriveDirectory.number(row.fields, width), let h = DriveDirectory.number(row.fields, height),
                    let matrix = Matrix3(rowMajor: [Array(values[0..<3]), Array(values[3..<6]), Array(values[6..<9])])
                {
                    // Int(exactly:) and not Int(_:), which traps on 1e300 or NaN.
                    guard let w = Int(exactly: w), let h = Int(exactly: h) else {
                        skipped.append(SkippedRow(path: path, line: row.line, reason: "width and height must be integers"))
                        cameras.append((t, nil))
                        continue
                    }
                    do {
                        intrinsics = try CameraIntrinsics(K: matrix, width: w, height: h)
                    } catch {
                        skipped.append(SkippedRow(path: path, line: row.line, reason: "intrinsics: \(error)"))
                    }
                }
                cameras.append((t, intrinsics))
            }
        }
        return cameras
    }

    /// The rows of `motion.csv`.
    struct MotionRows {
        var rates: [(Double, Double)] = []
        var gyro: [GyroSample] = []
        var gravity: [(Double, SIMD3<Double>)] = []
        var headings: [(Double, Double)] = []
    }

    /// `motion.csv`: yaw rate about vehicle up, gyro, gravity and heading per row.
    static func motionRows(_ table: CSVTable?, path: String, skipped: inout [SkippedRow]) throws(DriveError) -> MotionRows {
        var rows = MotionRows()
        if let table {
            skipped += table.skippedRows(in: path)
            let columns = try ["t", "gx", "gy", "gz", "rx", "ry", "rz"].map { name throws(DriveError) in
                try table.column(name, in: path)
            }
            let heading = try? table.column("heading", in: path)
            for row in table.rows {
                let values = columns.compactMap { DriveDirectory.number(row.fields, $0) }
                let g = SIMD3(values.count == 7 ? values[1] : .nan, values.count == 7 ? values[2] : .nan, values.count == 7 ? values[3] : .nan)
                let norm = (g * g).sum().squareRoot()
                guard values.count == 7, values.allSatisfy(\.isFinite), norm > 0 else {
                    skipped.append(SkippedRow(path: path, line: row.line, reason: "t, gravity or rotation rate missing or not finite"))
                    continue
                }
                // Yaw rate about vehicle up: the rotation rate along −gravity (reference ReplayProcessor).
                let r = SIMD3(values[4], values[5], values[6])
                rows.rates.append((values[0], -(r * g).sum() / norm))
                rows.gyro.append(GyroSample(t: values[0], rate: r))
                rows.gravity.append((values[0], g))
                if let heading, let degrees = DriveDirectory.number(row.fields, heading), degrees.isFinite {
                    rows.headings.append((values[0], degrees))
                }
            }
        }
        return rows
    }

    /// `location.csv`: speeds (negative is unknown) and courses per row.
    static func locationRows(
        _ table: CSVTable?, path: String, skipped: inout [SkippedRow]
    ) throws(DriveError) -> (speeds: [(Double, Double)], courses: [(Double, Double, Double?)]) {
        var speeds: [(Double, Double)] = [], courses: [(Double, Double, Double?)] = []
        if let table {
            skipped += table.skippedRows(in: path)
            let t = try table.column("t", in: path), speed = try table.column("speed", in: path)
            let course = try? table.column("course", in: path)
            let courseAccuracy = try? table.column("course_acc", in: path)
            for row in table.rows {
                guard let time = DriveDirectory.number(row.fields, t), let v = DriveDirectory.number(row.fields, speed),
                    time.isFinite, v.isFinite
                else {
                    skipped.append(SkippedRow(path: path, line: row.line, reason: "t or speed missing or not a number"))
                    continue
                }
                // A negative speed means "unknown" in CoreLocation.
                if v >= 0 { speeds.append((time, v)) }
                if let course, let degrees = DriveDirectory.number(row.fields, course), degrees.isFinite, degrees >= 0 {
                    courses.append((time, degrees, courseAccuracy.flatMap { DriveDirectory.number(row.fields, $0) }))
                }
            }
        }
        return (speeds, courses)
    }
}
