import Foundation
import Periphery

/// Harness: bytes as gpsd's socket stream. The first byte picks the read size (1 to 256 bytes), so
/// that lines are also cut across reads; the stream goes through the client's line splitter and the
/// TPV parser (`GPSDClient.receive`), each line also straight through `GPSDReport.parse`, and the
/// reports kept then answer the ego motion between a few frame times, which must be finite.
func fuzzGPSD(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let stream = UnsafeBufferPointer(start: bytes + 1, count: count - 1)
    for line in stream.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
        if let report = try? GPSDReport.parse(bytes: line) {
            precondition(report.speed.map { $0.isFinite && $0 >= 0 && $0 <= GPSDReport.maxSpeed } ?? true, "speed \(report)")
            precondition(report.track.map { $0 >= 0 && $0 <= 360 } ?? true, "track \(report)")
            precondition((0 ... 3).contains(report.mode) && (report.time?.isFinite ?? true), "report \(report)")
        }
    }
    let client = GPSDClient.offline()
    let chunk = Int(bytes[0]) + 1
    var start = 0, arrival = 100.0
    while start < stream.count {
        let end = min(start + chunk, stream.count)
        client.receive(stream[start ..< end], arrival: arrival)
        start = end
        arrival += 0.05
    }
    // Frames every 0.1 s over the stream's span (at most 30 s of it, to keep each run fast).
    var frame = 99.9
    while frame < min(arrival + 0.5, 130) {
        if let ego = client.egoDelta(from: frame, to: frame + 1.0 / 30) {
            precondition(ego.dx.isFinite && ego.dy.isFinite && ego.dyaw.isFinite && ego.valid, "ego \(ego)")
        }
        frame += 0.1
    }
    let counters = client.counters
    precondition(client.arrivals.count <= min(counters.reports, GPSDClient.capacity), "kept \(client.arrivals.count) of \(counters)")
    return 0
}
