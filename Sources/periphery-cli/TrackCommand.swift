import Foundation
import Periphery

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
        One output line per input line, to standard output unless --out is given. Every number must be
        finite (positions and sizes within ±10 km, scores in [0, 1]); at most 1,000 detections and
        4 MiB per line (docs/reliability.md). A bad line is an error naming the line and field.

        OPTIONS:
          --detections IN    input file
          --out OUT          output file (written atomically)
          --help             show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["detections", "out"], flags: [])
        try args.expectNoPositional()
        let frames: [RecordedFrame]
        do {
            frames = try DetectionStream.read(path: try args.required("detections"))
        } catch let error as DetectionStreamError {
            throw CLIError(error.description)
        }
        var replay = TrackerReplay()
        var output = ""
        for frame in frames {
            let tracks = replay.step(frame).tracks
            output += outputLine(t: frame.t, tracks: tracks, counters: replay.tracker.counters) + "\n"
        }
        if let out = args.value("out") {
            try OutputFile.write(Data(output.utf8), to: out)
        } else {
            try OutputFile.writeStandardOutput(Data(output.utf8))
        }
        return 0
    }

    static func outputLine(t: Double, tracks: [TrackedVehicle], counters: TrackerCounters) -> String {
        let items = tracks.map { v in
            let velocity = v.velocity.map { "[\($0.x), \($0.y)]" } ?? "null"
            return """
                {\"id\": \(v.id), \"x\": \(v.box.x), \"y\": \(v.box.y), \"z\": \(v.box.z), \
                \"length\": \(v.box.length), \"width\": \(v.box.width), \"height\": \(v.box.height), \"yaw\": \(v.box.yaw), \
                \"model_yaw\": \(v.modelYaw), \"heading_source\": \"\(v.headingSource.rawValue)\", \"label\": \(v.label), \"score\": \(v.score), \
                \"hits\": \(v.hits), \"observed\": \(v.observed), \"state\": \"\(v.state.rawValue)\", \"velocity\": \(velocity)}
                """
        }
        let c = counters
        return """
            {\"t\": \(t), \"tracks\": [\(items.joined(separator: ", "))], \"counters\": {\
            \"births\": \(c.births), \"matches\": \(c.matches), \"detection_suppressed\": \(c.detectionSuppressed), \
            \"track_suppressed\": \(c.trackSuppressed), \"ids_issued\": \(c.idsIssued)}}
            """
    }
}
