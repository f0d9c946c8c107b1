import Foundation
import PeripheryCore

/// Writes the reference replay sidecar `replay-safety40-v1.jsonl` (`reference.md` §13): a header line,
/// then one JSON line per processed frame with raw detections, tracks, ego motion, calibration and
/// stage timings.
public struct ReplaySidecar {
    /// The file name the reference uses.
    public static let fileName = "replay-safety40-v1.jsonl"

    private let handle: FileHandle
    private let temporaryPath: String
    private let path: String
    private var index = 0

    /// Creates the file (under a temporary name until `finish()`) and writes the header.
    ///
    /// - Throws: if the file cannot be created.
    public init(path: String, checkpoint: String, scoreThreshold: Float, rejectImplausible: Bool) throws {
        self.path = path
        temporaryPath = path + ".partial"
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporaryPath) else {
            throw DriveError.unreadable(path: temporaryPath, reason: "cannot create file")
        }
        self.handle = handle
        let header = "{\"schema\":1,\"kind\":\"periphery-replay\",\"checkpoint\":\(ReplaySidecar.quoted(checkpoint)),\"tracker\":\"safety40-tracker-v1\",\"score_threshold\":\(scoreThreshold),\"reject_implausible\":\(rejectImplausible),\"units\":\"SI\",\"timing_ms_fields\":[\"preprocess\",\"inference\",\"backbone\",\"gather\",\"head\",\"decode\"]}"
        try write(header)
    }

    /// Appends one frame.
    public mutating func append(pts: Double, ego: EgoDelta, result: PerceptionResult) throws {
        let t = result.timings
        let crop = result.calibration.crop, pose = result.calibration.setup.pose
        let raw = result.detections.map { d in
            "[\(d.score),\(d.label),\(n(d.x)),\(n(d.y)),\(n(d.z)),\(n(d.length)),\(n(d.width)),\(n(d.height)),\(n(d.yaw))]"
        }
        let tracks = result.tracks.map { v in
            let velocity = v.velocity.map { "[\(n($0.x)),\(n($0.y))]" } ?? "null"
            let trail = v.trail.map { "[\(n($0.x)),\(n($0.y)),\(n($0.z))]" }.joined(separator: ",")
            return "[\(v.id),\(n(v.x)),\(n(v.y)),\(n(v.z)),\(n(v.length)),\(n(v.width)),\(n(v.height)),\(n(v.yaw)),\(n(v.modelYaw)),\(v.label),\(n(v.score)),\(v.hits),\(v.observed),\"\(v.state.rawValue)\",\(velocity),[\(trail)],\"\(v.headingSource.rawValue)\"]"
        }
        let timings = [t.preprocess, t.inference, t.backbone, t.gather, t.head, t.decode].map { n($0) }
        let line = "{\"index\":\(index),\"pts\":\(n(pts)),\"raw_count\":\(raw.count),\"track_count\":\(tracks.count),\"ego\":[\(n(ego.dx)),\(n(ego.dy)),\(n(ego.dyaw)),\(n(ego.dt))],\"timing_ms\":[\(timings.joined(separator: ","))],\"calibration\":{\"focal\":\(n(crop.achievedFocal)),\"crop\":[\(crop.x),\(crop.y),\(crop.width),\(crop.height)],\"pose\":[\(n(pose.pitch)),\(n(pose.roll)),\(n(pose.yaw)),\(n(pose.height)),\(n(pose.forwardOfOrigin))]},\"raw\":[\(raw.joined(separator: ","))],\"tracks\":[\(tracks.joined(separator: ","))]}"
        try write(line)
        index += 1
    }

    /// Closes the file and moves it to its final name.
    public func finish() throws {
        try handle.synchronize()
        try handle.close()
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: temporaryPath, toPath: path)
    }

    private func write(_ line: String) throws {
        try handle.write(contentsOf: Data((line + "\n").utf8))
    }

    /// A JSON number; non-finite values (which JSON cannot hold) become null.
    private func n(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }

    static func quoted(_ s: String) -> String {
        let escaped = s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(escaped)\""
    }
}
