import PeripheryIO

/// Milliseconds counted in 0.1 ms bins up to 60 s, so that a run of any length keeps its latency
/// percentiles in fixed memory (a live run never ends by itself); the largest value is kept exactly.
struct LatencyHistogram {
    private static let binsPerMillisecond = 10.0
    private static let limit = 60_000.0
    private var counts = [Int](repeating: 0, count: Int(limit * binsPerMillisecond) + 1)
    private var total = 0
    private var largest = 0.0

    /// Counts one value (negative ones as 0, those past 60 s in the last bin).
    mutating func add(_ milliseconds: Double) {
        let value = max(0, milliseconds)
        counts[Int(min(value, Self.limit) * Self.binsPerMillisecond)] += 1
        total += 1
        largest = max(largest, value)
    }

    /// The median, 95th percentile (nearest rank, to the 0.1 ms bin's lower edge) and largest
    /// value; nil when nothing was counted.
    var spread: RunSummary.Spread? {
        guard total > 0 else { return nil }
        func rank(_ q: Double) -> Double {
            let wanted = max(1, Int((q * Double(total)).rounded(.up)))
            var seen = 0
            for (bin, count) in counts.enumerated() where count > 0 {
                seen += count
                if seen >= wanted { return min(Double(bin) / Self.binsPerMillisecond, largest) }
            }
            return largest
        }
        return RunSummary.Spread(p50: rank(0.5), p95: rank(0.95), max: largest)
    }
}
