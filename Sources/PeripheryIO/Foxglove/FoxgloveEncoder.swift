import Foundation
import PeripheryCore
import PeripheryGeometry

/// Turns a processed frame into its Foxglove messages, one per `FoxgloveTopic` in that order: the
/// one encoder behind both the MCAP recording and the live server, so that both carry the same
/// messages.
public struct FoxgloveEncoder: Sendable {
    /// One message of a frame.
    public struct Message: Sendable {
        /// Its channel.
        public var topic: FoxgloveTopic
        /// Its log time, nanoseconds.
        public var logTime: UInt64
        /// The JSON payload.
        public var data: Data
    }

    /// JPEG quality of the camera pictures.
    public var jpegQuality: Int

    /// An encoder writing pictures at `jpegQuality`.
    public init(jpegQuality: Int = 85) {
        self.jpegQuality = jpegQuality
    }

    /// A frame's messages, in `FoxgloveTopic.allCases` order: the picture, its camera, the camera's
    /// pose, the boxes, the ego path, the replay sidecar's line and the run's counts.
    ///
    /// - Parameters:
    ///   - image: the camera picture.
    ///   - timestamp: the frame's time, seconds (the messages' log time).
    ///   - index: its place among the processed frames, from 0.
    ///   - ego: the ego motion the tracker was given (nil: none).
    ///   - detections: the raw detections.
    ///   - tracks: the confirmed tracks after the frame.
    ///   - calibration: the calibration the frame was processed with.
    ///   - timings: stage timings, milliseconds, in the sidecar's order.
    ///   - live: arrival, latency and drops, as the sidecar's line has them.
    ///   - progress: the run's counts at this frame (nil: the frame counts itself only).
    ///   - egoPath: the ego's recent path in the current vehicle frame (`FoxgloveEgoPath.advance`).
    ///   - name: names the output in a compression error.
    /// - Throws: `ImageError` if the picture cannot be compressed.
    public func messages(
        image: RGBImage, timestamp: Double, index: Int, ego: EgoDelta?, detections: [Detection], tracks: [TrackedVehicle],
        calibration: CameraCalibration, timings: [Double], live: ReplaySidecar.LiveFields?, progress: RunProgress?,
        egoPath: [SIMD3<Double>], name: String
    ) throws -> [Message] {
        let time = Foxglove.Time(seconds: timestamp)
        let logTime = UInt64(time.sec) * 1_000_000_000 + UInt64(time.nsec)
        let intrinsics = calibration.setup.intrinsics
        let (fx, fy, cx, cy, s) = (intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy, intrinsics.skew)
        let jpeg = try JPEGCodec.encode(image, quality: jpegQuality, name: name)
        let line = ReplaySidecar.frameLine(
            index: index, pts: timestamp, ego: ego ?? EgoDelta(dt: 0, valid: false), detections: detections, tracks: tracks,
            calibration: calibration, timings: timings, live: live)
        let payloads: [(FoxgloveTopic, Data)] = [
            (.image, Foxglove.CompressedImage(timestamp: time, frameId: "camera", data: Data(jpeg), format: "jpeg").json),
            (
                .calibration,
                Foxglove.CameraCalibration(
                    timestamp: time, frameId: "camera", width: intrinsics.width, height: intrinsics.height, distortionModel: "plumb_bob",
                    D: [0, 0, 0, 0, 0], K: [fx, s, cx, 0, fy, cy, 0, 0, 1], R: [1, 0, 0, 0, 1, 0, 0, 0, 1],
                    P: [fx, s, cx, 0, 0, fy, cy, 0, 0, 0, 1, 0]
                ).json
            ),
            (.transform, Self.cameraTransform(calibration.setup.pose, time: time).json),
            (.scene, Self.scene(detections: detections, tracks: tracks, time: time).json),
            (
                .egoPath,
                Foxglove.PosesInFrame(
                    timestamp: time, frameId: "vehicle",
                    poses: egoPath.map {
                        Foxglove.Pose(position: Foxglove.Vector3(x: $0.x, y: $0.y, z: 0), orientation: Foxglove.Quaternion(yaw: $0.z))
                    }
                ).json
            ),
            (.result, Data(line.utf8)),
            (.stats, Foxglove.RunStats(index: index, pts: timestamp, progress: progress, live: live).json),
        ]
        return payloads.map { Message(topic: $0.0, logTime: logTime, data: $0.1) }
    }

    /// The camera's optical frame (x right, y down, z forward) in the vehicle frame.
    static func cameraTransform(_ pose: MountPose, time: Foxglove.Time) -> Foxglove.FrameTransform {
        let rotation = pose.vehicleToSensorRotation.transposed * CoordinateFrames.sensorToImageAxes.transposed
        let c = pose.cameraCentre
        return Foxglove.FrameTransform(
            timestamp: time, parentFrameId: "vehicle", childFrameId: "camera",
            translation: Foxglove.Vector3(x: c.x, y: c.y, z: c.z), rotation: Foxglove.Quaternion(rotation))
    }

    /// Every entity of the previous frame deleted; one per track (box, label with range and
    /// speed), and one holding the raw detections.
    static func scene(detections: [Detection], tracks: [TrackedVehicle], time: Foxglove.Time) -> Foxglove.SceneUpdate {
        var entities = tracks.map { track in
            let speed = track.velocity.map { String(format: "%.1f m/s", ($0.x * $0.x + $0.y * $0.y).squareRoot()) } ?? "speed unknown"
            let name = VehicleClass(rawValue: track.label)?.name ?? "unknown"
            var labelPose = pose(of: track.box)
            labelPose.position.z += track.box.height / 2 + 0.5
            return Foxglove.SceneEntity(
                timestamp: time, frameId: "vehicle", id: "track/\(track.id)",
                metadata: [
                    .init(key: "class", value: name), .init(key: "score", value: String(format: "%.3f", track.score)),
                    .init(key: "state", value: track.state.rawValue), .init(key: "hits", value: "\(track.hits)"),
                ],
                cubes: [cube(track.box, color: color(label: track.label, alpha: 0.6))],
                texts: [
                    Foxglove.TextPrimitive(
                        pose: labelPose, billboard: true, fontSize: 14, scaleInvariant: true, color: Foxglove.Color(r: 1, g: 1, b: 1, a: 1),
                        text: String(format: "#%d %@ %.1f m, %@", track.id, name, track.box.range, speed))
                ])
        }
        entities.append(
            Foxglove.SceneEntity(
                timestamp: time, frameId: "vehicle", id: "detections",
                metadata: [.init(key: "count", value: "\(detections.count)")],
                cubes: detections.map { cube($0.box, color: color(label: $0.label, alpha: 0.2)) }))
        return Foxglove.SceneUpdate(deletions: [Foxglove.SceneEntityDeletion(timestamp: time, type: 1, id: "")], entities: entities)
    }

    private static func pose(of box: VehicleBox) -> Foxglove.Pose {
        Foxglove.Pose(position: Foxglove.Vector3(x: box.x, y: box.y, z: box.z), orientation: Foxglove.Quaternion(yaw: box.yaw))
    }

    private static func cube(_ box: VehicleBox, color: Foxglove.Color) -> Foxglove.CubePrimitive {
        Foxglove.CubePrimitive(pose: pose(of: box), size: Foxglove.Vector3(x: box.length, y: box.width, z: box.height), color: color)
    }

    /// Class colours: light vehicles blue, large vehicles orange, two-wheelers green.
    private static func color(label: Int, alpha: Double) -> Foxglove.Color {
        switch VehicleClass(rawValue: label) {
        case .largeVehicle: Foxglove.Color(r: 1, g: 0.6, b: 0.1, a: alpha)
        case .twoWheeler: Foxglove.Color(r: 0.3, g: 0.9, b: 0.4, a: alpha)
        default: Foxglove.Color(r: 0.2, g: 0.6, b: 1, a: alpha)
        }
    }
}
