import Foundation
import PeripheryCore

/// The Foxglove message types of a run (`docs/guides/mcap.md#channels`). `FoxgloveJSON.swift` writes them
/// as JSON with Foxglove's field names (snake case, `D`/`K`/`R`/`P` in capitals), times as
/// `{sec, nsec}`, bytes as base64; `FoxgloveSchema` holds their JSON Schemas.
enum Foxglove {
    struct Time: Equatable {
        var sec: UInt32
        var nsec: UInt32

        init(seconds: Double) {
            let clamped = max(0, seconds)
            var whole = clamped.rounded(.down), fraction = ((clamped - whole) * 1e9).rounded()
            if fraction >= 1e9 {
                whole += 1
                fraction = 0
            }
            sec = UInt32(min(whole, Double(UInt32.max)))
            nsec = UInt32(fraction)
        }
    }

    struct Vector3 { var x, y, z: Double }
    struct Quaternion { var x, y, z, w: Double }
    struct Pose { var position: Vector3, orientation: Quaternion }
    struct Color { var r, g, b, a: Double }
    struct KeyValuePair { var key, value: String }

    struct CompressedImage {
        var timestamp: Time
        var frameId: String
        var data: Data
        var format: String
    }

    struct CameraCalibration {
        var timestamp: Time
        var frameId: String
        var width, height: Int
        var distortionModel: String
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // The field names of foxglove.CameraCalibration.
        var D, K, R, P: [Double]
    }

    struct FrameTransform {
        var timestamp: Time
        var parentFrameId: String
        var childFrameId: String
        var translation: Vector3
        var rotation: Quaternion
    }

    struct PosesInFrame {
        var timestamp: Time
        var frameId: String
        var poses: [Pose]
    }

    struct CubePrimitive {
        var pose: Pose
        var size: Vector3
        var color: Color
    }

    struct TextPrimitive {
        var pose: Pose
        var billboard: Bool
        var fontSize: Double
        var scaleInvariant: Bool
        var color: Color
        var text: String
    }

    struct SceneEntity {
        var timestamp: Time
        var frameId: String
        var id: String
        var lifetime = Time(seconds: 0)
        var frameLocked = true
        var metadata: [KeyValuePair] = []
        var cubes: [CubePrimitive] = []
        var texts: [TextPrimitive] = []
    }

    struct SceneEntityDeletion {
        var timestamp: Time
        /// 0: the entity with `id`; 1: every entity.
        var type: Int
        var id: String
    }

    struct SceneUpdate {
        var deletions: [SceneEntityDeletion]
        var entities: [SceneEntity]
    }

    /// `/perception/stats`: the run's counts at a frame (a frame without them counts itself only).
    struct RunStats {
        var index: Int
        var pts: Double
        var processed, dropped, corrupt: Int
        var latencyMs: Double?
        var fps: Double?

        init(index: Int, pts: Double, progress: RunProgress?, live: ReplaySidecar.LiveFields?) {
            (self.index, self.pts) = (index, pts)
            (processed, dropped, corrupt) = (progress?.processed ?? index + 1, progress?.dropped ?? 0, progress?.corrupt ?? 0)
            latencyMs = live.map { $0.latencyMs.isFinite ? $0.latencyMs : 0 }
            fps = progress.map { $0.framesPerSecond.isFinite ? $0.framesPerSecond : 0 }
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
