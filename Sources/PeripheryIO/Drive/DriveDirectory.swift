import Foundation
import PeripheryCore
import PeripheryGeometry

/// A recorded drive on disk: frames (PNG/JPEG, in name order, at the top level or else in
/// `images/`) with optional `frames.csv`,
/// `motion.csv` and `location.csv` in the reference layout (`docs/reference/contract.md#13-drive-and-replay-formats`).
public struct DriveDirectory: Sendable {
    /// One frame: its picture file, its timestamp and, when `frames.csv` gives one, its camera.
    public struct FrameEntry: Sendable {
        /// The picture's path.
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
        let pictures = try Self.framePictures(in: path)
        try self.init(
            path: path, pictures: pictures, frames: try Self.table("frames.csv", in: url), motion: try Self.table("motion.csv", in: url),
            location: try Self.table("location.csv", in: url), fps: fps)
    }

    /// The paths of a drive's frame pictures, in name order: at the top level of `path`, or else in
    /// `images/` (the layout `periphery synth --sequence` writes). Reads the listings only.
    ///
    /// - Throws: `DriveError.unreadable` if `path` is not a readable directory, `.noFrames` if
    ///   neither place has a PNG or JPEG.
    public static func framePictures(in path: String) throws(DriveError) -> [String] {
        let url = URL(fileURLWithPath: path)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .unreadable(path: path, reason: "not a readable directory")
        }
        func pictures(in names: [String]) -> [String] {
            names.filter { ImageFile.pictureExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        }
        var folder = url
        var found = pictures(in: names)
        if found.isEmpty, let inner = try? FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("images").path) {
            folder = url.appendingPathComponent("images")
            found = pictures(in: inner)
        }
        guard !found.isEmpty else { throw .noFrames(path: path) }
        return found.map { folder.appendingPathComponent($0).path }
    }

    /// The CSV table `name` in `folder`, or nil when there is none.
    static func table(_ name: String, in folder: URL) throws(DriveError) -> CSVTable? {
        let file = folder.appendingPathComponent(name).path
        return FileManager.default.fileExists(atPath: file) ? try CSVTable(path: file) : nil
    }

    /// A drive from its frame files and its CSV tables, already read (`path` names the drive and,
    /// joined with the tables' names, their rows in `skipped`).
    ///
    /// - Throws: `DriveError.missingColumn` if a table lacks a required column.
    package init(
        path: String, pictures: [String], frames framesTable: CSVTable?, motion motionTable: CSVTable?,
        location locationTable: CSVTable?, fps: Double = 10
    ) throws(DriveError) {
        let url = URL(fileURLWithPath: path)
        var skipped: [SkippedRow] = []
        let cameras = try Self.frameCameras(framesTable, path: url.appendingPathComponent("frames.csv").path, skipped: &skipped)
        if framesTable != nil, cameras.count != pictures.count {
            skipped.append(
                SkippedRow(
                    path: url.appendingPathComponent("frames.csv").path, line: 0,
                    reason: "\(cameras.count) rows for \(pictures.count) frames; frames without a row use 1/fps timing"))
        }
        frames = pictures.enumerated().map { index, picture in
            let camera = index < cameras.count ? cameras[index] : nil
            return FrameEntry(path: picture, timestamp: camera?.pts ?? Double(index) / fps, intrinsics: camera?.intrinsics)
        }
        let motion = try Self.motionRows(motionTable, path: url.appendingPathComponent("motion.csv").path, skipped: &skipped)
        let location = try Self.locationRows(locationTable, path: url.appendingPathComponent("location.csv").path, skipped: &skipped)
        self.path = path
        yawRates = motion.rates.sorted { $0.0 < $1.0 }
        gyro = motion.gyro.sorted { $0.t < $1.t }
        gravity = motion.gravity.sorted { $0.0 < $1.0 }
        speeds = location.speeds.sorted { $0.0 < $1.0 }
        courses = location.courses.sorted { $0.0 < $1.0 }
        headings = motion.headings.sorted { $0.0 < $1.0 }
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
    package var courseYawFixes: [CourseYaw.Fix] {
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
        return gyro[low..<last]
    }

    static func number(_ fields: [Substring], _ index: Int) -> Double? {
        guard index < fields.count else { return nil }
        return Double(fields[index].trimmingCharacters(in: .whitespaces))
    }

    /// The recorded ego motion since the frame at `previous`: nil for the first frame and for a drive
    /// without motion or location tables (frame sources then leave the ego to the run).
    func recordedEgo(since previous: Double?, to current: Double) -> EgoDelta? {
        guard let previous, !yawRates.isEmpty || !speeds.isEmpty else { return nil }
        return egoDelta(from: previous, to: current)
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
