import Foundation
import PeripheryCore
import PeripheryEvents
import PeripheryGeometry

/// Writes the reference replay sidecar `replay-safety40-v1.jsonl` (`docs/reference/contract.md#13-drive-and-replay-formats`): a header line,
/// then one JSON line per processed frame with raw detections, tracks, ego motion, calibration and
/// stage timings, the safety events that are on (`docs/guides/events.md`) and the live fields
/// (`docs/guides/live.md`); the last line is the run's summary, `{"summary": {...}}`.
public struct ReplaySidecar {
    /// The file name the reference uses.
    public static let fileName = "replay-safety40-v1.jsonl"

    private let file: AtomicFile
    private var index = 0

    /// Creates the file (as `path.partial` until `finish()`, where the frames written so far stay if
    /// the run stops early) and writes the header.
    ///
    /// - Throws: `OutputWriteError` if the file cannot be created or written.
    public init(path: String, checkpoint: String, scoreThreshold: Float, rejectImplausible: Bool) throws {
        file = try AtomicFile(path: path, temporary: path + ".partial")
        let header = """
            {\"schema\":1,\"kind\":\"periphery-replay\",\"checkpoint\":\(ReplaySidecar.quoted(checkpoint)),\
            \"tracker\":\"safety40-tracker-v1\",\"score_threshold\":\(scoreThreshold),\"reject_implausible\":\(rejectImplausible),\
            \"units\":\"SI\",\"timing_ms_fields\":[\"preprocess\",\"inference\",\"backbone\",\"gather\",\"head\",\"decode\"]}
            """
        try write(header)
    }

    /// What a frame's line says about its timing and its neighbours, beside the reference fields.
    public struct LiveFields: Sendable, Equatable {
        /// When the frame was decoded, seconds on `MonotonicClock`.
        public var arrival: Double
        /// Arrival to result, milliseconds.
        public var latencyMs: Double
        /// Frames dropped since the previous line.
        public var dropped: Int
        /// The frame was damaged and processed because the run keeps damaged frames.
        public var corrupt = false
        /// Seconds the source was lost before this frame, when it was.
        public var gap: Double?
        /// The tracker started afresh at this frame.
        public var trackerReset = false

        /// The fields of a frame that arrived at `arrival`.
        public init(arrival: Double, latencyMs: Double, dropped: Int, corrupt: Bool = false, gap: Double? = nil, trackerReset: Bool = false) {
            (self.arrival, self.latencyMs, self.dropped, self.corrupt, self.gap, self.trackerReset) = (
                arrival, latencyMs, dropped, corrupt, gap, trackerReset
            )
        }

        /// The fields as JSON members, after the line's reference fields.
        var members: String {
            var text = ",\"arrival\":\(ReplaySidecar.n(arrival)),\"latency_ms\":\(ReplaySidecar.n(latencyMs)),\"dropped\":\(dropped)"
            if corrupt { text += ",\"corrupt\":true" }
            if let gap { text += ",\"gap_s\":\(ReplaySidecar.n(gap))" }
            if trackerReset { text += ",\"tracker_reset\":true" }
            return text
        }
    }

    /// Appends one frame: its raw detections, the confirmed tracks after it, the calibration used
    /// and the stage timings in milliseconds, in the order of the header's `timing_ms_fields`
    /// (preprocess, inference, backbone, gather, head, decode), the reports of the safety events
    /// that start, stay on or end at it (`events`, left out when there are none), then its live
    /// fields.
    public mutating func append(
        pts: Double, ego: EgoDelta, detections: [Detection], tracks confirmed: [TrackedVehicle],
        calibration: CameraCalibration, timings: [Double], events: [SafetyEventReport] = [], live: LiveFields? = nil
    ) throws {
        try write(
            Self.frameLine(
                index: index, pts: pts, ego: ego, detections: detections, tracks: confirmed, calibration: calibration, timings: timings,
                events: events, live: live))
        index += 1
    }

    /// One frame's line of the sidecar: also the raw per-frame result of a Foxglove recording.
    static func frameLine(
        index: Int, pts: Double, ego: EgoDelta, detections: [Detection], tracks confirmed: [TrackedVehicle],
        calibration: CameraCalibration, timings: [Double], events: [SafetyEventReport] = [], live: LiveFields? = nil
    ) -> String {
        let crop = calibration.crop, pose = calibration.setup.pose
        let raw = detections.map { d in
            "[\(d.score),\(d.label),\(n(d.box.x)),\(n(d.box.y)),\(n(d.box.z)),\(n(d.box.length)),\(n(d.box.width)),\(n(d.box.height)),\(n(d.box.yaw))]"
        }
        let tracks = confirmed.map { v in
            let velocity = v.velocity.map { "[\(n($0.x)),\(n($0.y))]" } ?? "null"
            let trail = v.trail.map { "[\(n($0.x)),\(n($0.y)),\(n($0.z))]" }.joined(separator: ",")
            return """
                [\(v.id),\(n(v.box.x)),\(n(v.box.y)),\(n(v.box.z)),\(n(v.box.length)),\(n(v.box.width)),\(n(v.box.height)),\(n(v.box.yaw)),\(n(v.modelYaw)),\
                \(v.label),\(n(v.score)),\(v.hits),\(v.observed),\"\(v.state.rawValue)\",\(velocity),[\(trail)],\"\(v.headingSource.rawValue)\"]
                """
        }
        return """
            {\"index\":\(index),\"pts\":\(n(pts)),\"raw_count\":\(raw.count),\"track_count\":\(tracks.count),\
            \"ego\":[\(n(ego.dx)),\(n(ego.dy)),\(n(ego.dyaw)),\(n(ego.dt))],\
            \"timing_ms\":[\(timings.map { n($0) }.joined(separator: ","))],\
            \"calibration\":{\"focal\":\(n(crop.achievedFocal)),\"crop\":[\(crop.x),\(crop.y),\(crop.width),\(crop.height)],\
            \"pose\":[\(n(pose.pitch)),\(n(pose.roll)),\(n(pose.yaw)),\(n(pose.height)),\(n(pose.forwardOfOrigin))]},\
            \"raw\":[\(raw.joined(separator: ","))],\"tracks\":[\(tracks.joined(separator: ","))]\
            \(events.isEmpty ? "" : ",\"events\":" + eventsJSON(events))\(live?.members ?? "")}
            """
    }

    /// Event reports as JSON: `[{"type":…,"phase":…,"track":…,"ttc_s":…,"headway_s":…,"range_m":…}]`,
    /// every key always written and an unknown figure `null`, as `SafetyEventReport`'s `Codable` form.
    static func eventsJSON(_ reports: [SafetyEventReport]) -> String {
        func figure(_ x: Double?) -> String { x.map(n) ?? "null" }
        let objects = reports.map { r in
            """
            {\"type\":\"\(r.type.rawValue)\",\"phase\":\"\(r.phase.rawValue)\",\"track\":\(r.track),\
            \"ttc_s\":\(figure(r.timeToCollision)),\"headway_s\":\(figure(r.headway)),\"range_m\":\(figure(r.range))}
            """
        }
        return "[" + objects.joined(separator: ",") + "]"
    }

    /// Writes `summary` as the last line (when given), flushes the file and renames it onto its
    /// final name in one step (an older sidecar there is replaced, never removed first).
    ///
    /// - Throws: `OutputWriteError`.
    public func finish(summary: RunSummary? = nil) throws {
        if let summary {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let body = (try? encoder.encode(summary)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            try write("{\"summary\":\(body)}")
        }
        try file.commit()
    }

    private func write(_ line: String) throws {
        try file.append(Data((line + "\n").utf8))
    }

    /// A JSON number; non-finite values (which JSON cannot hold) become null.
    static func n(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }

    static func quoted(_ s: String) -> String {
        let escaped = s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(escaped)\""
    }
}
