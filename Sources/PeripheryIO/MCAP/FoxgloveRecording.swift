import Foundation
import PeripheryCore
import PeripheryGeometry

/// A perception run as an MCAP file that Foxglove opens as it is (`docs/mcap.md`): per frame, the
/// camera picture (JPEG), its calibration, the camera's pose on the vehicle, the tracks and raw
/// detections as 3-D boxes in the vehicle frame, the ego's recent path, and the frame's raw result
/// (the replay sidecar's line). Messages are JSON with JSON Schemas; log times are the frames'
/// times.
///
/// The file is `path.partial` until `finish()`, which a failed run calls too: what was recorded
/// before a failure stays a valid, indexed file.
public final class FoxgloveRecording {
    /// The topics, one message per frame on each.
    public enum Topic: String, CaseIterable, Sendable {
        case image = "/camera/image"
        case calibration = "/camera/calibration"
        case transform = "/tf"
        case scene = "/perception/scene"
        case egoPath = "/ego/path"
        case result = "/perception/result"
    }

    /// The file written.
    public let path: String
    /// JPEG quality of the camera pictures.
    public let jpegQuality: Int
    private var writer: MCAPWriter
    private var channels: [Topic: MCAPWriter.ChannelID] = [:]
    private let encoder = JSONEncoder()
    private var index = 0
    /// The ego's recent poses `(x, y, yaw)` in the frame of the first of them.
    private var egoPoses: [SIMD3<Double>] = []
    private static let pathLength = 300

    /// Creates the file and registers the schemas and channels.
    ///
    /// - Throws: `OutputWriteError`.
    public init(path: String, jpegQuality: Int = 85) throws {
        self.path = path
        self.jpegQuality = jpegQuality
        writer = try MCAPWriter(path: path, library: "periphery")
        let schemas: [(Topic, String, FoxgloveSchema)] = [
            (.image, "foxglove.CompressedImage", .compressedImage), (.calibration, "foxglove.CameraCalibration", .cameraCalibration),
            (.transform, "foxglove.FrameTransform", .frameTransform), (.scene, "foxglove.SceneUpdate", .sceneUpdate),
            (.egoPath, "foxglove.PosesInFrame", .posesInFrame),
        ]
        for (topic, name, schema) in schemas {
            let id = try writer.addSchema(name: name, encoding: "jsonschema", data: schema.document(named: name))
            channels[topic] = try writer.addChannel(topic: topic.rawValue, schema: id, messageEncoding: "json")
        }
        let result = try writer.addSchema(
            name: "periphery.FrameResult", encoding: "jsonschema",
            data: Data(#"{"title":"periphery.FrameResult","type":"object","description":"one line of replay-safety40-v1.jsonl (docs/contract.md)"}"#.utf8))
        channels[.result] = try writer.addChannel(topic: Topic.result.rawValue, schema: result, messageEncoding: "json")
    }

    /// Records one frame: `image` with what the engine made of it at `timestamp` seconds.
    ///
    /// - Throws: `OutputWriteError`, or `ImageError` if the picture cannot be compressed.
    public func append(
        image: RGBImage, timestamp: Double, ego: EgoDelta?, detections: [Detection], tracks: [TrackedVehicle],
        calibration: CameraCalibration, timings: [Double]
    ) throws {
        let time = Foxglove.Time(seconds: timestamp)
        let logTime = UInt64(time.sec) * 1_000_000_000 + UInt64(time.nsec)
        let intrinsics = calibration.setup.intrinsics
        let jpeg = try JPEGCodec.encode(image, quality: jpegQuality, name: path)
        try write(.image, logTime, Foxglove.CompressedImage(timestamp: time, frameId: "camera", data: Data(jpeg), format: "jpeg"))
        let (fx, fy, cx, cy, s) = (intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy, intrinsics.skew)
        try write(.calibration, logTime, Foxglove.CameraCalibration(
            timestamp: time, frameId: "camera", width: intrinsics.width, height: intrinsics.height, distortionModel: "plumb_bob",
            D: [0, 0, 0, 0, 0], K: [fx, s, cx, 0, fy, cy, 0, 0, 1], R: [1, 0, 0, 0, 1, 0, 0, 0, 1],
            P: [fx, s, cx, 0, 0, fy, cy, 0, 0, 0, 1, 0]))
        try write(.transform, logTime, Self.cameraTransform(calibration.setup.pose, time: time))
        try write(.scene, logTime, Self.scene(detections: detections, tracks: tracks, time: time))
        try write(.egoPath, logTime, egoPath(after: ego, time: time))
        let line = ReplaySidecar.frameLine(
            index: index, pts: timestamp, ego: ego ?? EgoDelta(dt: 0, valid: false), detections: detections, tracks: tracks,
            calibration: calibration, timings: timings)
        try writer.write(channel: channel(.result), logTime: logTime, data: Array(line.utf8))
        index += 1
    }

    /// Writes the summary and footer and gives the file its name.
    ///
    /// - Throws: `OutputWriteError`.
    public func finish() throws {
        try writer.finish()
    }

    private func channel(_ topic: Topic) -> MCAPWriter.ChannelID {
        guard let id = channels[topic] else { preconditionFailure("channel \(topic) not registered") }
        return id
    }

    private func write(_ topic: Topic, _ logTime: UInt64, _ message: some Encodable) throws {
        try writer.write(channel: channel(topic), logTime: logTime, data: try encoder.encode(message))
    }

    /// The camera's optical frame (x right, y down, z forward) in the vehicle frame.
    static func cameraTransform(_ pose: MountPose, time: Foxglove.Time) -> Foxglove.FrameTransform {
        let rotation = pose.vehicleToSensorRotation.transposed * Frames.sensorToImageAxes.transposed
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
                texts: [Foxglove.TextPrimitive(
                    pose: labelPose, billboard: true, fontSize: 14, scaleInvariant: true, color: Foxglove.Color(r: 1, g: 1, b: 1, a: 1),
                    text: String(format: "#%d %@ %.1f m, %@", track.id, name, track.box.range, speed))])
        }
        entities.append(Foxglove.SceneEntity(
            timestamp: time, frameId: "vehicle", id: "detections",
            metadata: [.init(key: "count", value: "\(detections.count)")],
            cubes: detections.map { cube($0.box, color: color(label: $0.label, alpha: 0.2)) }))
        return Foxglove.SceneUpdate(deletions: [Foxglove.SceneEntityDeletion(timestamp: time, type: 1, id: "")], entities: entities)
    }

    /// The ego's recent positions in the current vehicle frame, oldest first; a frame without
    /// valid ego motion starts the path again.
    private func egoPath(after ego: EgoDelta?, time: Foxglove.Time) -> Foxglove.PosesInFrame {
        if let ego, ego.valid, let last = egoPoses.last {
            let (c, s) = (cos(last.z), sin(last.z))
            egoPoses.append(SIMD3(last.x + c * ego.dx - s * ego.dy, last.y + s * ego.dx + c * ego.dy, last.z + ego.dyaw))
            if egoPoses.count > Self.pathLength { egoPoses.removeFirst(egoPoses.count - Self.pathLength) }
        } else {
            egoPoses = [.zero]
        }
        let now = egoPoses[egoPoses.count - 1]
        let (c, s) = (cos(now.z), sin(now.z))
        let poses = egoPoses.map { p in
            let (dx, dy) = (p.x - now.x, p.y - now.y)
            return Foxglove.Pose(
                position: Foxglove.Vector3(x: c * dx + s * dy, y: -s * dx + c * dy, z: 0), orientation: Foxglove.Quaternion(yaw: p.z - now.z))
        }
        return Foxglove.PosesInFrame(timestamp: time, frameId: "vehicle", poses: poses)
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
