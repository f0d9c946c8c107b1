import Foundation

/// How a run went, whichever way it ended: the replay sidecar's last line
/// (`{"summary": {...}}`), and what `periphery run` prints.
///
/// Every frame a source decoded is accounted for: `received` = `processed` + `dropped` +
/// `corrupt`.
public struct RunSummary: Sendable, Equatable, Codable {
    /// How a run ended.
    public enum Ending: String, Sendable, Codable {
        /// The file or drive was read to its end.
        case endOfInput = "end-of-input"
        /// A stop was asked for: SIGINT, SIGTERM, `--max-frames`, or the library's `StopRequest`.
        case stopped
        /// The run's wall-clock `--duration` ran out.
        case duration
        /// The input failed part-way (a decoding error, a file cut short).
        case inputFailed = "input-failed"
        /// A live source stayed lost for longer than its reconnect timeout.
        case timeout
    }

    /// Milliseconds at three points of a distribution.
    public struct Spread: Sendable, Equatable, Codable {
        public var p50: Double
        public var p95: Double
        public var max: Double

        /// Three given points.
        public init(p50: Double, p95: Double, max: Double) {
            (self.p50, self.p95, self.max) = (p50, p95, max)
        }

        /// The median, 95th percentile (nearest rank) and largest of `values`; nil when empty.
        public init?(_ values: [Double]) {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            func rank(_ q: Double) -> Double { sorted[Swift.min(sorted.count - 1, Swift.max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))] }
            (p50, p95, self.max) = (rank(0.5), rank(0.95), sorted[sorted.count - 1])
        }
    }

    /// Frames the source decoded, damaged ones included.
    public var received = 0
    /// Frames that went through the engine.
    public var processed = 0
    /// Frames decoded but replaced by a newer one before the engine was free (live sources).
    public var dropped = 0
    /// Damaged frames skipped.
    public var corrupt = 0
    /// Damaged frames processed and marked, because the run keeps them (counted in `processed`).
    public var corruptKept = 0
    /// Arrival to result, per processed frame.
    public var latencyMs: Spread?
    /// Arrival to the start of processing: how old a frame is when the engine takes it.
    public var ageMs: Spread?
    /// Times a live source was lost and reconnected.
    public var reconnects = 0
    /// Frames whose ego motion fell back to the stationary rule for want of a GPS fix.
    public var egoFallbacks = 0
    /// Ego reports (gpsd) rejected as garbled, hostile or impossible.
    public var egoReportsSkipped = 0
    /// How the run ended.
    public var ended = Ending.endOfInput
    /// Wall-clock seconds from the start to the last frame's outputs.
    public var seconds = 0.0
    /// The run's safety events: counts, rate and worst figures (`PerceptionSession` fills it in;
    /// `nil` leaves the key out).
    public var events: Events?

    /// An empty summary.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case received, processed, dropped, corrupt, reconnects, ended, seconds, events
        case corruptKept = "corrupt_kept"
        case latencyMs = "latency_ms", ageMs = "age_ms", egoFallbacks = "ego_fallbacks", egoReportsSkipped = "ego_reports_skipped"
    }

    /// The summary as one line for people: counts, latency and how it ended.
    public var report: String {
        var parts = ["\(processed) of \(received) frames processed", "\(dropped) dropped", "\(corrupt) corrupt skipped"]
        if corruptKept > 0 { parts.append("\(corruptKept) corrupt kept") }
        if let latencyMs {
            parts.append(String(format: "latency p50 %.0f ms, p95 %.0f ms, max %.0f ms", latencyMs.p50, latencyMs.p95, latencyMs.max))
        }
        if reconnects > 0 { parts.append("\(reconnects) reconnects") }
        if egoFallbacks > 0 { parts.append("\(egoFallbacks) frames without a GPS fix") }
        if egoReportsSkipped > 0 { parts.append("\(egoReportsSkipped) GPS reports skipped") }
        return parts.joined(separator: ", ") + String(format: " in %.1f s; ended: %@", seconds, ended.rawValue)
    }
}
