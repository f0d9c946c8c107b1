import Foundation
import PeripheryCore

/// The Foxglove message types of a run (`docs/mcap.md#channels`), as JSON: Foxglove's
/// field names (snake case, `D`/`K`/`R`/`P` in capitals), times as `{sec, nsec}`, bytes as base64. `FoxgloveSchema` holds their JSON Schemas.
enum Foxglove {
    struct Time: Codable, Equatable {
        var sec: UInt32
        var nsec: UInt32

        init(seconds: Double) {
            let clamped = max(0, seconds)
            var whole = clamped.rounded(.down), fraction = ((clamped - whole) * 1e9).rounded()
            if fraction >= 1e9 { whole += 1; fraction = 0 }
            sec = UInt32(min(whole, Double(UInt32.max)))
            nsec = UInt32(fraction)
        }
    }

    struct Vector3: Codable { var x, y, z: Double }
    struct Quaternion: Codable { var x, y, z, w: Double }
    struct Pose: Codable { var position: Vector3, orientation: Quaternion }
    struct Color: Codable { var r, g, b, a: Double }
    struct KeyValuePair: Codable { var key, value: String }

    struct CompressedImage: Codable {
        var timestamp: Time
        var frameId: String
        var data: Data
        var format: String

        enum CodingKeys: String, CodingKey { case timestamp, frameId = "frame_id", data, format }
    }

    struct CameraCalibration: Codable {
        var timestamp: Time
        var frameId: String
        var width, height: Int
        var distortionModel: String
        var D, K, R, P: [Double]

        enum CodingKeys: String, CodingKey {
            case timestamp, frameId = "frame_id", width, height, distortionModel = "distortion_model", D, K, R, P
        }
    }

    struct FrameTransform: Codable {
        var timestamp: Time
        var parentFrameId: String
        var childFrameId: String
        var translation: Vector3
        var rotation: Quaternion

        enum CodingKeys: String, CodingKey {
            case timestamp, parentFrameId = "parent_frame_id", childFrameId = "child_frame_id", translation, rotation
        }
    }

    struct PosesInFrame: Codable {
        var timestamp: Time
        var frameId: String
        var poses: [Pose]

        enum CodingKeys: String, CodingKey { case timestamp, frameId = "frame_id", poses }
    }

    struct CubePrimitive: Codable {
        var pose: Pose
        var size: Vector3
        var color: Color
    }

    struct TextPrimitive: Codable {
        var pose: Pose
        var billboard: Bool
        var fontSize: Double
        var scaleInvariant: Bool
        var color: Color
        var text: String

        enum CodingKeys: String, CodingKey { case pose, billboard, fontSize = "font_size", scaleInvariant = "scale_invariant", color, text }
    }

    struct SceneEntity: Codable {
        var timestamp: Time
        var frameId: String
        var id: String
        var lifetime = Time(seconds: 0)
        var frameLocked = true
        var metadata: [KeyValuePair] = []
        var cubes: [CubePrimitive] = []
        var texts: [TextPrimitive] = []
        // Kinds this recording does not draw; present and empty, as viewers expect every list.
        var arrows: [Empty] = [], spheres: [Empty] = [], cylinders: [Empty] = [], lines: [Empty] = []
        var triangles: [Empty] = [], models: [Empty] = []

        enum CodingKeys: String, CodingKey {
            case timestamp, frameId = "frame_id", id, lifetime, frameLocked = "frame_locked", metadata, cubes, texts, arrows, spheres
            case cylinders, lines, triangles, models
        }
    }

    /// An element of a list that stays empty.
    struct Empty: Codable {}

    struct SceneEntityDeletion: Codable {
        var timestamp: Time
        /// 0: the entity with `id`; 1: every entity.
        var type: Int
        var id: String
    }

    struct SceneUpdate: Codable {
        var deletions: [SceneEntityDeletion]
        var entities: [SceneEntity]
    }

    /// `/perception/stats`: the run's counts at a frame (a frame without them counts itself only).
    struct RunStats: Codable {
        var index: Int
        var pts: Double
        var processed, dropped, corrupt: Int
        var latencyMs: Double?
        var fps: Double?

        enum CodingKeys: String, CodingKey { case index, pts, processed, dropped, corrupt, latencyMs = "latency_ms", fps }

        init(frame: FoxgloveFrame) {
            (index, pts) = (frame.index, frame.timestamp)
            (processed, dropped, corrupt) = (frame.progress?.processed ?? frame.index + 1, frame.progress?.dropped ?? 0, frame.progress?.corrupt ?? 0)
            latencyMs = frame.live.map { $0.latencyMs.isFinite ? $0.latencyMs : 0 }
            fps = frame.progress.map { $0.framesPerSecond.isFinite ? $0.framesPerSecond : 0 }
        }
    }
}

extension Foxglove.Quaternion {
    /// A rotation about z by `yaw` radians.
    init(yaw: Double) { self.init(x: 0, y: 0, z: sin(yaw / 2), w: cos(yaw / 2)) }

    /// The rotation of an orthonormal matrix (Shepperd's method: the largest diagonal term first).
    init(_ m: Matrix3) {
        let trace = m[0, 0] + m[1, 1] + m[2, 2]
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(x: (m[2, 1] - m[1, 2]) / s, y: (m[0, 2] - m[2, 0]) / s, z: (m[1, 0] - m[0, 1]) / s, w: s / 4)
        } else if m[0, 0] > m[1, 1] && m[0, 0] > m[2, 2] {
            let s = (1 + m[0, 0] - m[1, 1] - m[2, 2]).squareRoot() * 2
            self.init(x: s / 4, y: (m[0, 1] + m[1, 0]) / s, z: (m[0, 2] + m[2, 0]) / s, w: (m[2, 1] - m[1, 2]) / s)
        } else if m[1, 1] > m[2, 2] {
            let s = (1 + m[1, 1] - m[0, 0] - m[2, 2]).squareRoot() * 2
            self.init(x: (m[0, 1] + m[1, 0]) / s, y: s / 4, z: (m[1, 2] + m[2, 1]) / s, w: (m[0, 2] - m[2, 0]) / s)
        } else {
            let s = (1 + m[2, 2] - m[0, 0] - m[1, 1]).squareRoot() * 2
            self.init(x: (m[0, 2] + m[2, 0]) / s, y: (m[1, 2] + m[2, 1]) / s, z: s / 4, w: (m[1, 0] - m[0, 1]) / s)
        }
    }
}
