import Foundation
import PeripheryCore
import PeripheryGeometry

/// A recorded drive on disk: frames (PNG/JPEG, in name order, at the top level or else in
/// `images/`) with optional `frames.csv`,
/// `motion.csv` and `location.csv` in the reference layout (`docs/contract.md#13-drive-and-replay-formats`).
public struct DriveDirectory: Sendable {
    /// One frame: its picture file, its timestamp and, when `frames.csv` gives one, its camera.
    public struct FrameEntry: Sendable {
        public var path: String
        /// Seconds, on the clock of `motion.csv` and `location.csv` when `frames.csv` is present.
        public var timestamp: Double
        public var intrinsics: CameraIntrinsics?
    }

    /// The drive's directory.
    public let path: String
    /// Frames in name order.
    public let frames: [FrameEntry]
    /// Yaw-rate samples `(t, rad/s)` from `motion.csv`, in time order.
    public let yawRates: [(t: Double, rate: Double)]
    /// The gyro of `motion.csv`: rotation rate in device axes, in time order.
    public let gyro: [GyroSample]
    /// Gravity samples `(t, g in device axes)` from `motion.csv`, in time order.
    public let gravity: [(t: Double, g: SIMD3<Double>)]
    /// Speed samples `(t, m/s)` from `location.csv`, in time order.
    public let speeds: [(t: Double, speed: Double)]
    /// GPS courses `(t, degrees clockwise from north, accuracy in degrees if given)` from
    /// `location.csv`'s optional `course` and `course_acc` columns, in time order; fixes with a
    /// negative (unknown) course are left out.
    public let courses: [(t: Double, degrees: Double, accuracy: Double?)]
    /// Camera headings `(t, degrees clockwise from north)` from `motion.csv`'s optional `heading`
    /// column, in time order.
    public let headings: [(t: Double, degrees: Double)]
    /// Rows that could not be used, with their line numbers.
    public let skipped: [SkippedRow]
    private let yawRateTimes: [Double], speedTimes: [Double]

    /// Reads a drive directory; frames without `frames.csv` are timed at `1/fps` intervals.
    ///
    /// - Throws: `DriveError` if the directory or a present CSV cannot be read, a CSV lacks a
    ///   required column, or there are no frames.
    public init(path: String, fps: Double = 10) throws(DriveError) {
        let url = URL(fileURLWithPath: path)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .unreadable(path: path, reason: "not a readable directory")
        }
        func framePictures(in names: [String]) -> [String] {
            names.filter { ["png", "jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        }
        // Frames at the top level, or in images/ (the layout `periphery synth --sequence` writes).
        var frameFolder = url
        var pictures = framePictures(in: names)
        if pictures.isEmpty, let inner = try? FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("images").path) {
            frameFolder = url.appendingPathComponent("images")
            pictures = framePictures(in: inner)
        }
        guard !pictures.isEmpty else { throw .noFrames(path: path) }
        func table(_ name: String) throws(DriveError) -> CSVTable? {
            let file = url.appendingPathComponent(name).path
            return FileManager.default.fileExists(atPath: file) ? try CSVTable(path: file) : nil
        }
        try self.init(
            path: path, pictures: pictures.map { frameFolder.appendingPathComponent($0).path },
            frames: try table("frames.csv"), motion: try table("motion.csv"), location: try table("location.csv"), fps: fps)
    }

    /// A drive from its frame files and its CSV tables, already read (`path` names the drive and,
    /// joined with the tables' names, their rows in `skipped`).
    ///
    /// - Throws: `DriveError.missingColumn` if a table lacks a required column.
    package init(path: String, pictures: [String], frames framesTable: CSVTable?, motion motionTable: CSVTable?,
                 location locationTable: CSVTable?, fps: Double = 10) throws(DriveError) {
        let url = URL(fileURLWithPath: path)
        var skipped: [SkippedRow] = []

        var cameras: [(pts: Double, intrinsics: CameraIntrinsics?)] = []
        let framesCSV = url.appendingPathComponent("frames.csv").path
        if let table = framesTable {
            skipped += table.skippedRows(in: framesCSV)
            let pts = try table.column("pts", in: framesCSV)
            let k = try ["k00", "k01", "k02", "k10", "k11", "k12", "k20", "k21", "k22"].map { name throws(DriveError) in
                try table.column(name, in: framesCSV)
            }
            let width = try table.column("width", in: framesCSV), height = try table.column("height", in: framesCSV)
            for row in table.rows {
                guard let t = DriveDirectory.number(row.fields, pts), t.isFinite else {
                    skipped.append(SkippedRow(path: framesCSV, line: row.line, reason: "pts is not a number"))
                    continue
                }
                // K may be blank when the camera reported none: the calibration file's then applies.
                var intrinsics: CameraIntrinsics?
                let values = k.compactMap { DriveDirectory.number(row.fields, $0) }
                if values.count == 9, let w = DriveDirectory.number(row.fields, width), let h = DriveDirectory.number(row.fields, height),
                   let matrix = Matrix3(rowMajor: [Array(values[0..<3]), Array(values[3..<6]), Array(values[6..<9])]) {
                    // Int(exactly:) and not Int(_:), which traps on 1e300 or NaN.
                    guard let w = Int(exactly: w), let h = Int(exactly: h) else {
                        skipped.append(SkippedRow(path: framesCSV, line: row.line, reason: "width and height must be integers"))
                        cameras.append((t, nil))
                        continue
                    }
                    do {
                        intrinsics = try CameraIntrinsics(K: matrix, width: w, height: h)
                    } catch {
                        skipped.append(SkippedRow(path: framesCSV, line: row.line, reason: "intrinsics: \(error)"))
                    }
                }
                cameras.append((t, intrinsics))
            }
            if cameras.count != pictures.count {
                skipped.append(SkippedRow(
                    path: framesCSV, line: 0,
                    reason: "\(cameras.count) rows for \(pictures.count) frames; frames without a row use 1/fps timing"))
            }
        }
        frames = pictures.enumerated().map { index, picture in
            let camera = index < cameras.count ? cameras[index] : nil
            return FrameEntry(
                path: picture,
                timestamp: camera?.pts ?? Double(index) / fps, intrinsics: camera?.intrinsics)
        }

        var rates: [(Double, Double)] = []
        var gyro: [GyroSample] = [], gravity: [(Double, SIMD3<Double>)] = [], headings: [(Double, Double)] = []
        let motionCSV = url.appendingPathComponent("motion.csv").path
        if let table = motionTable {
            skipped += table.skippedRows(in: motionCSV)
            let columns = try ["t", "gx", "gy", "gz", "rx", "ry", "rz"].map { name throws(DriveError) in
                try table.column(name, in: motionCSV)
            }
            let heading = try? table.column("heading", in: motionCSV)
            for row in table.rows {
                let values = columns.compactMap { DriveDirectory.number(row.fields, $0) }
                let g = SIMD3(values.count == 7 ? values[1] : .nan, values.count == 7 ? values[2] : .nan, values.count == 7 ? values[3] : .nan)
                let norm = (g * g).sum().squareRoot()
                guard values.count == 7, values.allSatisfy(\.isFinite), norm > 0 else {
                    skipped.append(SkippedRow(path: motionCSV, line: row.line, reason: "t, gravity or rotation rate missing or not finite"))
                    continue
                }
                // Yaw rate about vehicle up: the rotation rate along −gravity (reference ReplayProcessor).
                let r = SIMD3(values[4], values[5], values[6])
                rates.append((values[0], -(r * g).sum() / norm))
                gyro.append(GyroSample(t: values[0], rate: r))
                gravity.append((values[0], g))
                if let heading, let degrees = DriveDirectory.number(row.fields, heading), degrees.isFinite {
                    headings.append((values[0], degrees))
                }
            }
        }
        var speeds: [(Double, Double)] = [], courses: [(Double, Double, Double?)] = []
        let locationCSV = url.appendingPathComponent("location.csv").path
        if let table = locationTable {
            skipped += table.skippedRows(in: locationCSV)
            let t = try table.column("t", in: locationCSV), speed = try table.column("speed", in: locationCSV)
            let course = try? table.column("course", in: locationCSV)
            let courseAccuracy = try? table.column("course_acc", in: locationCSV)
            for row in table.rows {
                guard let time = DriveDirectory.number(row.fields, t), let v = DriveDirectory.number(row.fields, speed),
                      time.isFinite, v.isFinite else {
                    skipped.append(SkippedRow(path: locationCSV, line: row.line, reason: "t or speed missing or not a number"))
                    continue
                }
                // A negative speed means "unknown" in CoreLocation.
                if v >= 0 { speeds.append((time, v)) }
                if let course, let degrees = DriveDirectory.number(row.fields, course), degrees.isFinite, degrees >= 0 {
                    courses.append((time, degrees, courseAccuracy.flatMap { DriveDirectory.number(row.fields, $0) }))
                }
            }
        }
        self.path = path
        yawRates = rates.sorted { $0.0 < $1.0 }
        self.gyro = gyro.sorted { $0.t < $1.t }
        self.gravity = gravity.sorted { $0.0 < $1.0 }
        self.speeds = speeds.sorted { $0.0 < $1.0 }
        self.courses = courses.sorted { $0.0 < $1.0 }
        self.headings = headings.sorted { $0.0 < $1.0 }
        yawRateTimes = yawRates.map(\.t)
        speedTimes = self.speeds.map(\.t)
        self.skipped = skipped
    }

    /// The gyro bias estimated over the whole drive (`GyroBias`), device axes, rad/s: zero for
    /// drives shorter than its minimum span or without motion.csv.
    public var gyroBias: SIMD3<Double> {
        var estimator = GyroBias()
        for (sample, g) in zip(gyro, gravity) { estimator.add(t: sample.t, rate: sample.rate, gravity: g.g) }
        return estimator.bias(meanYawRate: GyroBias.meanYawRate(courses: courses.map { ($0.t, $0.degrees) }))
    }

    /// The course fixes paired with the camera heading nearest in time (within 0.1 s) and the
    /// speed at the fix, for `CourseYaw`.
    public var courseYawFixes: [CourseYaw.Fix] {
        let times = headings.map(\.t)
        return courses.compactMap { fix in
            guard let speed = speed(at: fix.t) else { return nil }
            let after = DriveDirectory.firstIndex(in: times, after: fix.t)
            let nearest = [after - 1, after].filter { headings.indices.contains($0) }
                .min { abs(headings[$0].t - fix.t) < abs(headings[$1].t - fix.t) }
            guard let index = nearest, abs(headings[index].t - fix.t) <= 0.1 else { return nil }
            return CourseYaw.Fix(course: fix.degrees, courseAccuracy: fix.accuracy, speed: speed, heading: headings[index].degrees)
        }
    }

    /// The latest recorded speed at or before `t` and at most 2 s old, m/s.
    public func speed(at t: Double) -> Double? {
        let latest = DriveDirectory.firstIndex(in: speedTimes, after: t) - 1
        guard latest >= 0, t - speeds[latest].t <= 2.0 else { return nil }
        return speeds[latest].speed
    }

    /// Gyro readings with `from ≤ t ≤ to`.
    public func gyro(from start: Double, to end: Double) -> ArraySlice<GyroSample> {
        var low = 0, high = gyro.count
        while low < high {
            let mid = (low + high) / 2
            if gyro[mid].t < start { low = mid + 1 } else { high = mid }
        }
        var last = low
        while last < gyro.count, gyro[last].t <= end { last += 1 }
        return gyro[low ..< last]
    }

    static func number(_ fields: [Substring], _ index: Int) -> Double? {
        guard index < fields.count else { return nil }
        return Double(fields[index].trimmingCharacters(in: .whitespaces))
    }

    /// Ego motion between two frame times from the recorded yaw rates and speeds (reference
    /// ReplayProcessor): mean yaw rate over `(previous, current]` (at least one sample), the latest
    /// speed at or before `current` and at most 2 s old, then the constant-twist arc. Invalid when
    /// either is missing.
    public func egoDelta(from previous: Double, to current: Double) -> EgoDelta {
        let dt = current - previous
        var sum = 0.0, count = 0
        var i = DriveDirectory.firstIndex(in: yawRateTimes, after: previous)
        while i < yawRates.count && yawRates[i].t <= current {
            sum += yawRates[i].rate
            count += 1
            i += 1
        }
        let latest = DriveDirectory.firstIndex(in: speedTimes, after: current) - 1
        guard dt > 0, count > 0, latest >= 0, current - speeds[latest].t <= 2.0 else {
            return EgoDelta(dx: 0, dy: 0, dyaw: 0, dt: max(dt, 0), valid: false)
        }
        return EgoDelta.arc(speed: speeds[latest].speed, yawRate: sum / Double(count), dt: dt)
    }

    /// Index of the first time greater than `t` in sorted `times` (binary search).
    static func firstIndex(in times: [Double], after t: Double) -> Int {
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
