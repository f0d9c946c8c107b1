import Foundation
import Testing

@testable import PeripheryCore

/// The tracker against the reference's own run on a recorded drive (`tracker_selfcheck.json`,
/// reference, `docs/reference/contract.md#115-tracker-fixture`): every frame replayed, counters compared after each, tracks at each checkpoint.
struct TrackerConformanceTests {
    /// Tolerance on every reported number (the reference's parity rule).
    static let tolerance = 1e-5

    static let fixtureURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tracker_selfcheck.json")

    /// One reference track at a checkpoint.
    struct ExpectedTrack {
        var id: Int
        var numbers: [Double] // x, y, z, length, width, height, modelYaw, yaw
        var headingSource: String
        var label: Int
        var score: Double
        var hits: Int
        var observed: Bool
        var state: String
        var velocity: SIMD2<Double>?
    }

    /// One replayed frame.
    struct Frame {
        var t: Double
        var ego: EgoDelta
        var detections: [Detection]
        var detectionSuppressed: Int
        var trackSuppressed: Int
        var idsIssued: Int
        var expected: [ExpectedTrack]?
    }

    enum FixtureError: Error { case malformed(String) }

    static func number(_ any: Any?, _ what: String) throws -> Double {
        guard let n = any as? NSNumber else { throw FixtureError.malformed(what) }
        return n.doubleValue
    }

    static func integer(_ any: Any?, _ what: String) throws -> Int {
        guard let n = any as? NSNumber else { throw FixtureError.malformed(what) }
        return n.intValue
    }

    /// A detection row `[score, label, x, y, z, length, width, height, yaw]`; missing trailing fields
    /// default to z 0, length 4.5, width 1.9, height 1.5, yaw 0.
    static func detection(_ any: Any, candidate: Int) throws -> Detection {
        guard let row = any as? [Any], row.count >= 4 else { throw FixtureError.malformed("detection row") }
        let defaults: [Double] = [0, 4.5, 1.9, 1.5, 0]
        var tail = defaults
        for k in 0..<min(row.count - 4, 5) { tail[k] = try number(row[4 + k], "detection field") }
        let box = VehicleBox(
            x: try number(row[2], "x"), y: try number(row[3], "y"), z: tail[0], length: tail[1], width: tail[2], height: tail[3],
            yaw: tail[4])
        return Detection(score: Float(try number(row[0], "score")), label: try integer(row[1], "label"), box: box, candidate: candidate)
    }

    static func expectedTrack(_ any: Any) throws -> ExpectedTrack {
        guard let r = any as? [Any], r.count == 16 else { throw FixtureError.malformed("expected track") }
        var velocity: SIMD2<Double>?
        if let v = r[15] as? [Any] {
            guard v.count == 2 else { throw FixtureError.malformed("velocity") }
            velocity = SIMD2(try number(v[0], "vx"), try number(v[1], "vy"))
        }
        guard let source = r[9] as? String, let state = r[14] as? String, let observed = r[13] as? Bool else {
            throw FixtureError.malformed("expected track strings")
        }
        return ExpectedTrack(
            id: try integer(r[0], "id"), numbers: try (1...8).map { try number(r[$0], "field \($0)") },
            headingSource: source, label: try integer(r[10], "label"), score: try number(r[11], "score"),
            hits: try integer(r[12], "hits"), observed: observed, state: state, velocity: velocity)
    }

    static func load() throws -> (frames: [Frame], final: [String: Int]) {
        let data = try Data(contentsOf: fixtureURL)
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let rows = root["frames"] as? [Any], let final = root["final"] as? [String: Any]
        else {
            throw FixtureError.malformed("root")
        }
        let frames = try rows.map { any -> Frame in
            guard let f = any as? [Any], f.count == 10, let dets = f[5] as? [Any] else {
                throw FixtureError.malformed("frame")
            }
            let ego = EgoDelta(
                dx: try number(f[1], "dx"), dy: try number(f[2], "dy"),
                dyaw: try number(f[3], "dyaw"), dt: try number(f[4], "dt"))
            let expected: [ExpectedTrack]? =
                f[9] is NSNull
                ? nil
                : try (f[9] as? [Any]).map {
                    try $0.map(expectedTrack)
                } ?? { throw FixtureError.malformed("expected") }()
            return Frame(
                t: try number(f[0], "t"), ego: ego,
                detections: try dets.enumerated().map { try detection($1, candidate: $0) },
                detectionSuppressed: try integer(f[6], "ds"), trackSuppressed: try integer(f[7], "ts"),
                idsIssued: try integer(f[8], "ids"), expected: expected)
        }
        return (frames, try final.mapValues { try integer($0, "final") })
    }

    @Test func replayMatchesReference() throws {
        let (frames, final) = try Self.load()
        try #require(frames.count == 1200)
        var tracker = VehicleTracker()
        var checkpoints = 0, tracksCompared = 0
        var maxPosition = 0.0, maxVelocity = 0.0, maxOther = 0.0
        for (index, frame) in frames.enumerated() {
            let out = tracker.step(detections: frame.detections, ego: frame.ego, t: frame.t)
            let c = tracker.counters
            try #require(c.detectionSuppressed == frame.detectionSuppressed, "frame \(index): detection_suppressed")
            try #require(c.trackSuppressed == frame.trackSuppressed, "frame \(index): track_suppressed")
            try #require(c.idsIssued == frame.idsIssued, "frame \(index): ids_issued")
            guard let expected = frame.expected else { continue }
            checkpoints += 1
            try #require(out.map(\.id) == expected.map(\.id), "frame \(index) t \(frame.t): track ids")
            for (got, want) in zip(out, expected) {
                tracksCompared += 1
                let context = "frame \(index) track \(want.id)"
                #expect(got.label == want.label, "\(context): label")
                #expect(got.hits == want.hits, "\(context): hits")
                #expect(got.observed == want.observed, "\(context): observed")
                #expect(got.state.rawValue == want.state, "\(context): state")
                #expect(got.headingSource.rawValue == want.headingSource, "\(context): heading source")
                let numbers = [got.box.x, got.box.y, got.box.z, got.box.length, got.box.width, got.box.height, got.modelYaw, got.box.yaw]
                let errors = zip(numbers, want.numbers).map { abs($0 - $1) }
                for (k, e) in errors.enumerated() {
                    #expect(e <= Self.tolerance, "\(context): field \(k + 1) off by \(e)")
                }
                let scoreError = abs(got.score - want.score)
                #expect(scoreError <= Self.tolerance, "\(context): score")
                maxPosition = max(maxPosition, errors[0], errors[1], errors[2])
                maxOther = max(maxOther, scoreError, errors[3...].max() ?? 0)
                #expect((got.velocity == nil) == (want.velocity == nil), "\(context): velocity presence")
                if let g = got.velocity, let w = want.velocity {
                    let e = max(abs(g.x - w.x), abs(g.y - w.y))
                    #expect(e <= Self.tolerance, "\(context): velocity off by \(e)")
                    maxVelocity = max(maxVelocity, e)
                }
            }
        }
        let c = tracker.counters
        #expect(c.births == final["births"])
        #expect(c.detectionSuppressed == final["detection_suppressed"])
        #expect(c.trackSuppressed == final["track_suppressed"])
        #expect(c.idsIssued == final["ids_issued"])
        #expect(checkpoints == 298)
        print(
            "tracker conformance: \(frames.count) frames, \(checkpoints) checkpoints, \(tracksCompared) tracks; "
                + "max |Δposition| \(maxPosition), max |Δvelocity| \(maxVelocity), max other \(maxOther); "
                + "counters \(c)")
    }
}
