import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// Records a `SyntheticDrive` the way the reference recorder lays out a drive (`docs/reference/contract.md#13-drive-and-replay-formats`),
/// with the truth beside it:
///
/// ```
/// DIR/images/NNNNNN.png        frames at 1/fps
/// DIR/labels/NNNNNN.json       visible vehicles, with "id" (the same vehicle keeps its id)
/// DIR/calibration/NNNNNN.json  the camera of that frame: the mount plus the body's bump pitch
/// DIR/calibration.json         the drive's camera with the true mount (no bumps)
/// DIR/frames.csv               pts, K (row-major), width, height (exposure, iso, lens blank)
/// DIR/motion.csv               100 Hz: gravity (g) and user acceleration (g), rotation rate (rad/s),
///                              attitude quaternion, gravity pitch/roll and heading (degrees)
/// DIR/location.csv             1 Hz: GPS fix with speed (m/s) and course (degrees from north)
/// DIR/truth.json               mount, sensor errors, ego trajectory per frame; for a drive with a
///                              scenario also the scenario, the scripted lead's id, the ego's front
///                              bumper and per frame the true in-path lead
/// ```
///
/// Device axes are the phone's (`DeviceAxes`); the rotation rate carries white noise and a constant
/// bias per drive, as a MEMS gyro does; speed carries GPS-like noise. Times are seconds from the
/// drive's start on one clock (frame pts and sensor `t` alike).
public struct SyntheticDriveRecorder: Sendable {
    /// Sensor imperfections.
    public struct Sensors: Sendable, Hashable {
        /// Gyro white noise, rad/s (1σ per sample).
        public var gyroNoise = 0.003
        /// Largest gyro bias per axis, rad/s (drawn per drive).
        public var gyroBiasLimit = 0.003
        /// Accelerometer and gravity noise, g (1σ).
        public var accelerometerNoise = 0.01
        /// GPS speed noise, m/s (1σ).
        public var speedNoise = 0.1
        /// Motion sample rate, Hz.
        public var motionRate = 100.0
        /// GPS fix rate, Hz.
        public var locationRate = 1.0

        /// Default sensors.
        public init() {}
    }

    /// Where to write.
    public let dataset: SyntheticDataset
    /// Sensor imperfections.
    public var sensors = Sensors()
    /// Rendering options (the noise seed is set per frame).
    public var renderOptions = SceneRenderer.Options()
    /// Whether to write the KITTI object layout too.
    public var writesKITTI = false
    /// Whether to write the Cityscapes 3D layout too.
    public var writesCityscapes3D = false

    /// A recorder writing into `dataset`.
    public init(dataset: SyntheticDataset) { self.dataset = dataset }

    /// Renders and writes `frames` frames at `fps` of a drive seen through `camera`, calling
    /// `progress` after each frame. Returns the number of visible vehicle labels written.
    @discardableResult
    public func record(
        _ drive: SyntheticDrive, camera: CameraSetup, frames: Int, fps: Double, progress: (Int) -> Void = { _ in }
    ) throws -> Int {
        var rng = SyntheticRandom(seed: SyntheticRandom.mix(drive.seed ^ 0x5E4505))
        let bias =
            SIMD3(
                rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)) * sensors.gyroBiasLimit
        var labelled = 0
        var framesCSV = "pts,k00,k01,k02,k10,k11,k12,k20,k21,k22,width,height,exposure_s,iso,lens\n"
        var trajectory: [[String: Any]] = []
        let k = camera.intrinsics.matrix.rowMajor.flatMap { $0 }
        for index in 0..<frames {
            let t = Double(index) / fps
            let ego = drive.ego(at: t)
            var pose = camera.pose
            pose.pitch += ego.bumpPitch
            let setup = CameraSetup(intrinsics: camera.intrinsics, pose: pose)
            let (scene, traffic) = drive.scene(at: t)
            var options = renderOptions
            options.noiseSeed = drive.seed &* 1_000_003 &+ UInt64(index)
            let frame = SceneRenderer(options: options).render(scene, intrinsics: camera.intrinsics, pose: pose)
            let visible = frame.visibleLabels
            try dataset.write(index: index, image: frame.image, setup: setup, labels: visible, ids: visible.map { traffic[$0.vehicleIndex] })
            if writesKITTI { try KITTIObjectFormat.write(index: index, dataset: dataset, setup: setup, labels: visible) }
            if writesCityscapes3D { try CityscapesBox3DFormat.write(index: index, dataset: dataset, setup: setup, labels: visible) }
            labelled += visible.count
            framesCSV += "\(t)," + k.map { "\($0)" }.joined(separator: ",") + ",\(camera.intrinsics.width),\(camera.intrinsics.height),,,\n"
            var entry: [String: Any] = [
                "index": index, "t": t, "s": ego.s, "x": ego.position.x, "y": ego.position.y, "heading": ego.heading,
                "speed": ego.speed, "yaw_rate": ego.yawRate, "bump_pitch_deg": ego.bumpPitch * 180 / .pi,
            ]
            if drive.scenario != nil { entry["in_path_lead"] = SyntheticDriveRecorder.json(drive.inPathLead(at: t)) }
            trajectory.append(entry)
            progress(index + 1)
        }
        let duration = Double(max(frames - 1, 0)) / fps
        try write(framesCSV, "frames.csv")
        try write(motionCSV(drive, camera: camera.pose, duration: duration, bias: bias, rng: &rng), "motion.csv")
        try write(locationCSV(drive, duration: duration, rng: &rng), "location.csv")
        try AtomicFile.write(CalibrationFile.encode(camera), to: dataset.path + "/calibration.json")
        var truth: [String: Any] = [
            "kind": "periphery-synthetic-drive", "seed": drive.seed, "fps": fps, "frames": frames,
            "mount": [
                "pitch_deg": camera.pose.pitch * 180 / .pi, "roll_deg": camera.pose.roll * 180 / .pi,
                "yaw_deg": camera.pose.yaw * 180 / .pi, "height_m": camera.pose.height,
                "forward_of_origin_m": camera.pose.forwardOfOrigin,
            ],
            "gyro_bias_rad_s": [bias.x, bias.y, bias.z], "gyro_noise_rad_s": sensors.gyroNoise,
            "ego_speed_m_s": drive.egoSpeed, "trajectory": trajectory,
        ]
        // Without a scenario the file stays as it always was.
        if let scenario = drive.scenario {
            truth["scenario"] = SyntheticDriveRecorder.json(scenario)
            truth["lead_id"] = SyntheticDriveRecorder.nullable(drive.leadID)
            truth["ego_front_m"] = SyntheticDrive.egoFrontOfOrigin
        }
        try write(String(decoding: try JSONSerialization.data(withJSONObject: truth, options: [.sortedKeys]), as: UTF8.self), "truth.json")
        return labelled
    }

    func write(_ text: String, _ name: String) throws {
        try AtomicFile.write(Data(text.utf8), to: "\(dataset.path)/\(name)")
    }

    /// `t,gx,gy,gz,ax,ay,az,rx,ry,rz,qx,qy,qz,qw,gravity_pitch,roll,heading` at the motion rate.
    func motionCSV(_ drive: SyntheticDrive, camera: MountPose, duration: Double, bias: SIMD3<Double>, rng: inout SyntheticRandom) -> String {
        var csv = "t,gx,gy,gz,ax,ay,az,rx,ry,rz,qx,qy,qz,qw,gravity_pitch,roll,heading\n"
        let samples = Int((duration * sensors.motionRate).rounded(.down))
        for i in 0...samples {
            let t = Double(i) / sensors.motionRate
            let ego = drive.ego(at: t)
            var pose = camera
            pose.pitch += ego.bumpPitch
            let device = DeviceAxes.fromVehicle(pose)
            // Vehicle axes: nose-up pitching turns about −y (ISO 8855, y left).
            let omega = SIMD3(0, -ego.bumpPitchRate, ego.yawRate)
            let rate = device * omega + bias + normal3(&rng) * sensors.gyroNoise
            let gravity = device * SIMD3(0, 0, -1) + normal3(&rng) * sensors.accelerometerNoise
            let user = device * SIMD3(0, ego.speed * ego.yawRate / 9.80665, 0) + normal3(&rng) * sensors.accelerometerNoise
            // Attitude: device → a world frame with x east, y north, z up.
            let c = cos(ego.heading), s = sin(ego.heading)
            let world = Matrix3(rows: SIMD3(c, -s, 0), SIMD3(s, c, 0), SIMD3(0, 0, 1)) * device.transposed
            let q = SyntheticDriveRecorder.quaternion(world)
            // The camera's heading, as the reference derives it from the attitude: the azimuth of the
            // optical axis (device −z), so that course − heading is the mount yaw.
            let axis = world * SIMD3(0, 0, -1)
            let heading = SyntheticDriveRecorder.compass(atan2(axis.y, axis.x))
            let fields = [
                t, gravity.x, gravity.y, gravity.z, user.x, user.y, user.z, rate.x, rate.y, rate.z,
                q.x, q.y, q.z, q.w, pose.pitch * 180 / .pi, pose.roll * 180 / .pi, heading,
            ]
            csv += fields.map { String(format: "%.7g", $0) }.joined(separator: ",") + "\n"
        }
        return csv
    }

    /// `t,t_wall,lat,lon,alt,h_acc,v_acc,speed,speed_acc,course,course_acc` at the GPS rate.
    func locationCSV(_ drive: SyntheticDrive, duration: Double, rng: inout SyntheticRandom) -> String {
        var csv = "t,t_wall,lat,lon,alt,h_acc,v_acc,speed,speed_acc,course,course_acc\n"
        let latitude = 37.4, longitude = -122.1, metresPerDegree = 111_320.0
        let fixes = Int((duration * sensors.locationRate).rounded(.down))
        for i in 0...fixes {
            let t = Double(i) / sensors.locationRate
            let ego = drive.ego(at: t)
            let lat = latitude + ego.position.y / metresPerDegree
            let lon = longitude + ego.position.x / (metresPerDegree * cos(latitude * .pi / 180))
            let speed = max(0, ego.speed + rng.normal() * sensors.speedNoise)
            csv += String(
                format: "%.3f,%.3f,%.8f,%.8f,%.1f,5,3,%.3f,0.3,%.2f,2\n",
                t, 1_780_000_000 + t, lat, lon, 50.0, speed, SyntheticDriveRecorder.compass(ego.heading))
        }
        return csv
    }

    /// Degrees clockwise from north of a heading counter-clockwise from east, in [0, 360).
    static func compass(_ heading: Double) -> Double {
        var degrees = 90 - heading * 180 / .pi
        degrees -= 360 * (degrees / 360).rounded(.down)
        return degrees
    }

    /// Unit quaternion (x, y, z, w) of a rotation matrix.
    static func quaternion(_ m: Matrix3) -> SIMD4<Double> {
        let trace = m[0, 0] + m[1, 1] + m[2, 2]
        var q: SIMD4<Double>
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = SIMD4((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4)
        } else if m[0, 0] > m[1, 1] && m[0, 0] > m[2, 2] {
            let s = (1 + m[0, 0] - m[1, 1] - m[2, 2]).squareRoot() * 2
            q = SIMD4(s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
        } else if m[1, 1] > m[2, 2] {
            let s = (1 + m[1, 1] - m[0, 0] - m[2, 2]).squareRoot() * 2
            q = SIMD4((m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
        } else {
            let s = (1 + m[2, 2] - m[0, 0] - m[1, 1]).squareRoot() * 2
            q = SIMD4((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s)
        }
        return q / (q * q).sum().squareRoot()
    }

    func normal3(_ rng: inout SyntheticRandom) -> SIMD3<Double> { SIMD3(rng.normal(), rng.normal(), rng.normal()) }
}
