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
        4 MiB per line (docs/guides/reliability.md). A bad line is an error naming the line and field.

        OPTIONS:
          --detections IN    input file
          --out OUT          output file (written atomically)
          --help             show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["detections", "out"], flags: [])
        try args.expectNoPositional()
        let frames: [TrackerInput]
        do {
            frames = try DetectionStream.read(path: try args.required("detections"))
        } catch let error as DetectionStreamError {
            throw CLIError(error.description)
        }
        var replay = TrackerReplay()
        var output = ""
        for frame in frames {
            let tracks = replay.step(frame).tracks
            output += try JSONOutput.line(OutputLine(t: frame.t, tracks: tracks.map(TrackRecord.init), counters: replay.tracker.counters)) + "\n"
        }
        if let out = args.value("out") {
            try OutputFile.write(Data(output.utf8), to: out)
        } else {
            try OutputFile.writeStandardOutput(Data(output.utf8))
        }
        return 0
    }

    /// One output line: the frame's time, its confirmed tracks and the tracker's counters.
    struct OutputLine: Encodable {
        var t: Double
        var tracks: [TrackRecord]
        var counters: TrackerCounters
    }

    /// A track as `track` prints it: id, the box, then the tracker's view of it.
    struct TrackRecord: Encodable {
        var vehicle: TrackedVehicle

        enum CodingKeys: String, CodingKey { case id, modelYaw, headingSource, label, score, hits, observed, state, velocity }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            let v = vehicle
            try c.encode(v.id, forKey: .id)
            try v.box.encode(to: encoder)
            try c.encode(v.modelYaw, forKey: .modelYaw)
            try c.encode(v.headingSource, forKey: .headingSource)
            try c.encode(v.label, forKey: .label)
            try c.encode(v.score, forKey: .score)
            try c.encode(v.hits, forKey: .hits)
            try c.encode(v.observed, forKey: .observed)
            try c.encode(v.state, forKey: .state)
            try c.encode(v.velocity.map { [$0.x, $0.y] }, forKey: .velocity)
        }
    }
}
