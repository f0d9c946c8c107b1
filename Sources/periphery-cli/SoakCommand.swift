import Foundation
import Periphery

/// `periphery soak`: the tracker over a long synthetic drive, for flat memory and sound resets.
enum SoakCommand: Command {
    static let name = "soak"
    static let summary = "Run the tracker over a long synthetic detection stream; check memory and resets."
    static let help = """
        USAGE: periphery soak [--frames N] [--seed S] [--max-growth-mb M] [--json]

        Replays a deterministic synthetic detection stream (eight vehicles around an ego at 14 m/s,
        noise, misses, false positives; every 997th frame an anomaly: time going back, a duplicated
        frame, a 3 s gap, NaN ego motion, no ego motion) through the tracker with the engine's reset
        rules. Checks on every frame that tracks are finite with distinct ids, and after every anomaly
        that the tracker was reset. Reports the resident memory after 1,000 warm-up frames and at the
        end; exits 1 if it grew by more than M MB or a check failed.

        OPTIONS:
          --frames N          frames after the warm-up (default 100000)
          --seed S            stream seed (default 1)
          --max-growth-mb M   resident-memory growth allowed (default 4)
          --json              print one JSON object
          --help              show this help
        """

    static let warmup = 1_000

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["frames", "seed", "max-growth-mb"], flags: ["json"])
        try args.expectNoPositional()
        let frames = Int(try args.number("frames", default: 100_000, in: 1...1e9))
        let seed = UInt64(try args.number("seed", default: 1, in: 0...1e15))
        let allowedGrowth = try args.number("max-growth-mb", default: 4, in: 0...1e6)

        var stream = SyntheticDetectionStream(seed: seed)
        var replay = TrackerReplay()
        var failures: [String] = []
        var resets = 0, idsIssued = 0, peakTracks = 0
        var startRSS: Int?
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<warmup + frames {
            if index == warmup { startRSS = ResidentMemory.current() }
            let (frame, anomaly) = stream.next()
            let before = replay.tracker.counters.idsIssued
            let tracks = replay.step(frame).tracks
            let counters = replay.tracker.counters
            if counters.idsIssued < before { idsIssued += before }
            if let anomaly {
                resets += 1
                // Right after a reset there was nothing to match, and every id is a birth of this frame.
                if counters.matches != 0 || counters.idsIssued != counters.births || counters.idsIssued > frame.detections.count {
                    failures.append("frame \(index): \(anomaly.rawValue) did not reset the tracker (\(counters))")
                }
            }
            peakTracks = max(peakTracks, tracks.count)
            if Set(tracks.map(\.id)).count != tracks.count { failures.append("frame \(index): two tracks share an id") }
            if !tracks.allSatisfy({ [$0.box.x, $0.box.y, $0.box.z, $0.box.yaw, $0.box.length, $0.box.width].allSatisfy(\.isFinite) }) {
                failures.append("frame \(index): a track is not finite")
            }
            if failures.count > 20 { break }
        }
        idsIssued += replay.tracker.counters.idsIssued
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let endRSS = ResidentMemory.current()
        // Memory that cannot be measured is a failed check, not a pass.
        var growth = Double.nan
        if let startRSS, let endRSS {
            growth = Double(endRSS - startRSS) / 1_048_576
            if growth > allowedGrowth { failures.append(String(format: "resident memory grew by %.2f MB (allowed %.2f)", growth, allowedGrowth)) }
        } else {
            failures.append("resident memory unreadable: /proc/self/statm could not be read or parsed")
        }
        let mb = { (bytes: Int?) in bytes.map { (Double($0) / 10_485.76).rounded() / 100 } }
        if args.flag("json") {
            print(
                try JSONOutput.line(
                    Summary(
                        frames: frames, warmup: warmup, seconds: (seconds * 1000).rounded() / 1000, rssStartMb: mb(startRSS),
                        rssEndMb: mb(endRSS), resets: resets, idsIssued: idsIssued, peakTracks: peakTracks, failures: failures.count)))
        } else {
            let megabytes = { (bytes: Int?) in mb(bytes).map { String(format: "%.2f", $0) } ?? "unreadable" }
            print("frames \(frames) after \(warmup) warm-up, \(String(format: "%.2f s, %.0f frames/s", seconds, Double(warmup + frames) / seconds))")
            print("resident memory \(megabytes(startRSS)) MB after warm-up -> \(megabytes(endRSS)) MB at the end (\(String(format: "%+.2f", growth)) MB)")
            print("tracker resets on anomalies \(resets), ids issued \(idsIssued), most confirmed tracks in a frame \(peakTracks)")
        }
        for failure in failures { printError("soak: \(failure)") }
        return failures.isEmpty ? 0 : 1
    }

    /// The `--json` summary; an unreadable resident memory is `null` (and a failure).
    struct Summary: Encodable {
        var frames, warmup: Int
        var seconds: Double
        var rssStartMb, rssEndMb: Double?
        var resets, idsIssued, peakTracks, failures: Int

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(frames, forKey: .frames)
            try c.encode(warmup, forKey: .warmup)
            try c.encode(seconds, forKey: .seconds)
            try c.encode(rssStartMb, forKey: .rssStartMb)
            try c.encode(rssEndMb, forKey: .rssEndMb)
            try c.encode(resets, forKey: .resets)
            try c.encode(idsIssued, forKey: .idsIssued)
            try c.encode(peakTracks, forKey: .peakTracks)
            try c.encode(failures, forKey: .failures)
        }

        enum CodingKeys: String, CodingKey { case frames, warmup, seconds, rssStartMb, rssEndMb, resets, idsIssued, peakTracks, failures }
    }
}
