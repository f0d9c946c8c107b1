import Foundation
import PeripheryCore

/// `periphery track`: the tracker alone over recorded detections.
enum TrackCommand: Command {
    static let name = "track"
    static let summary = "Run the vehicle tracker over recorded detections (JSON lines)."
    static let help = """
        USAGE: periphery track --detections IN.jsonl [--out OUT.jsonl]

        Each input line: {"t": s, "ego": {"dx", "dy", "dyaw", "dt"}, "detections": [{score, label, x, y, z,
        length, width, height, yaw}, ...]} (ego optional: without it the tracker is reset, as for any
        frame without valid ego motion). Each output line: {"t", "tracks": [{id, x, y, z, length, width,
        height, yaw, model_yaw, heading_source, label, score, hits, observed, state, velocity}, ...],
        "counters": {births, matches, detection_suppressed, track_suppressed, ids_issued}}.
        One output line per input line, to standard output unless --out is given.

        OPTIONS:
          --detections IN    input file
          --out OUT          output file (written atomically)
          --help             show this help
        """

    /// Longest accepted input line, bytes.
    static let maxLineLength = 4 << 20

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["detections", "out"], flags: [])
        try args.expectNoPositional()
        let path = try args.required("detections")
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw CLIError("\(path): cannot read as UTF-8 text")
        }
        var tracker = VehicleTracker()
        var previous: Double?
        var output: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let lineNumber = index + 1
            guard line.utf8.count <= maxLineLength else { throw CLIError("\(path):\(lineNumber): line longer than \(maxLineLength) bytes") }
            let frame = try parse(line, at: "\(path):\(lineNumber)")
            // The engine's reset rules apply to recorded streams as well.
            var ego = frame.ego ?? EgoDelta(dt: 0)
            if TrackerResetPolicy.needsReset(timestamp: frame.t, previous: previous, ego: frame.ego) {
                tracker.reset()
                ego = EgoDelta(dt: 0)
            }
            let tracks = tracker.step(detections: frame.detections, ego: ego, t: frame.t)
            previous = frame.t
            output.append(outputLine(t: frame.t, tracks: tracks, counters: tracker.counters))
        }
        let result = output.joined(separator: "\n") + (output.isEmpty ? "" : "\n")
        if let out = args.value("out") {
            do {
                try Data(result.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
            } catch {
                throw CLIError("\(out): cannot write (\(error.localizedDescription))")
            }
        } else {
            FileHandle.standardOutput.write(Data(result.utf8))
        }
        return 0
    }

    static func parse(_ line: Substring, at location: String) throws(CLIError) -> (t: Double, ego: EgoDelta?, detections: [Detection]) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            throw CLIError("\(location): not a JSON object")
        }
        func number(_ value: Any?, _ field: String) throws(CLIError) -> Double {
            guard let n = value as? NSNumber, String(cString: n.objCType) != "c", n.doubleValue.isFinite else {
                throw CLIError("\(location): field '\(field)' must be a finite number")
            }
            return n.doubleValue
        }
        let t = try number(object["t"], "t")
        var ego: EgoDelta?
        if let raw = object["ego"] {
            guard let e = raw as? [String: Any] else { throw CLIError("\(location): field 'ego' must be an object") }
            ego = EgoDelta(
                dx: try number(e["dx"], "ego.dx"), dy: try number(e["dy"], "ego.dy"),
                dyaw: try number(e["dyaw"], "ego.dyaw"), dt: try number(e["dt"], "ego.dt"))
        }
        guard let list = object["detections"] as? [Any] else { throw CLIError("\(location): field 'detections' must be an array") }
        var detections: [Detection] = []
        for (i, item) in list.enumerated() {
            guard let d = item as? [String: Any] else { throw CLIError("\(location): detections[\(i)] must be an object") }
            func field(_ name: String) throws(CLIError) -> Double { try number(d[name], "detections[\(i)].\(name)") }
            let label = try field("label")
            guard label == label.rounded(), (0...3).contains(label) else {
                throw CLIError("\(location): detections[\(i)].label must be 0, 1, 2 or 3")
            }
            detections.append(Detection(
                score: Float(try field("score")), label: Int(label), x: try field("x"), y: try field("y"), z: try field("z"),
                length: try field("length"), width: try field("width"), height: try field("height"), yaw: try field("yaw"),
                candidate: i))
        }
        return (t, ego, detections)
    }

    static func outputLine(t: Double, tracks: [TrackedVehicle], counters: TrackerCounters) -> String {
        let items = tracks.map { v in
            let velocity = v.velocity.map { "[\($0.x), \($0.y)]" } ?? "null"
            return "{\"id\": \(v.id), \"x\": \(v.x), \"y\": \(v.y), \"z\": \(v.z), \"length\": \(v.length), \"width\": \(v.width), \"height\": \(v.height), \"yaw\": \(v.yaw), \"model_yaw\": \(v.modelYaw), \"heading_source\": \"\(v.headingSource.rawValue)\", \"label\": \(v.label), \"score\": \(v.score), \"hits\": \(v.hits), \"observed\": \(v.observed), \"state\": \"\(v.state.rawValue)\", \"velocity\": \(velocity)}"
        }
        let c = counters
        return "{\"t\": \(t), \"tracks\": [\(items.joined(separator: ", "))], \"counters\": {\"births\": \(c.births), \"matches\": \(c.matches), \"detection_suppressed\": \(c.detectionSuppressed), \"track_suppressed\": \(c.trackSuppressed), \"ids_issued\": \(c.idsIssued)}}"
    }
}
