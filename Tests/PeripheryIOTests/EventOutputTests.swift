import Foundation
import PeripheryCore
import PeripheryEvents
import PeripheryGeometry
import Testing

@testable import PeripheryIO

/// The safety events where IO writes them: a sidecar line's `events`, the summary's `events` and
/// the `/perception/events` messages. The reference is `SafetyEventReport`'s and `SafetyEvent`'s
/// own `Codable` form (the agreed keys), read back by Foundation's parser.
struct EventOutputTests {
    private let reports = [
        SafetyEventReport(type: .forwardCollision, phase: .update, track: 7, timeToCollision: 2.75, headway: 1.125, range: 22.5),
        SafetyEventReport(type: .cutIn, phase: .end, track: 3, timeToCollision: nil, headway: nil, range: nil),
    ]

    private func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The reports as their `Codable` form gives them, parsed: what every output must hold.
    private func codableForm(_ reports: [SafetyEventReport]) throws -> NSArray {
        try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(reports)) as? NSArray)
    }

    private func line(events: [SafetyEventReport]) throws -> String {
        let intrinsics = try CameraIntrinsics(fx: 910, fy: 910, cx: 582, cy: 437, width: 1164, height: 874)
        let calibration = CameraCalibration(intrinsics: intrinsics, pose: .fallback)
        return ReplaySidecar.frameLine(
            index: 4, pts: 0.4, ego: EgoDelta(dt: 0.1), detections: [], tracks: [], calibration: calibration, timings: [1, 2, 3, 4, 5, 6],
            events: events, live: ReplaySidecar.LiveFields(arrival: 1, latencyMs: 2, dropped: 0))
    }

    /// A frame without events writes the line it wrote before events existed: no `events` key.
    @Test func sidecarLineCarriesTheReportsOnlyWhileAnEventIsOn() throws {
        let quiet = try line(events: [])
        #expect(!quiet.contains("events"))
        #expect(quiet.hasSuffix(#""tracks":[],"arrival":1.0,"latency_ms":2.0,"dropped":0}"#))
        let parsed = try object(Data(try line(events: reports).utf8))
        let expected = try codableForm(reports)
        #expect(parsed["events"] as? NSArray == expected)
        #expect(parsed["latency_ms"] as? Double == 2)
    }

    @Test func summaryCountsEveryTypeAndWritesUnknownFiguresAsNull() throws {
        let events = [
            SafetyEvent(type: .forwardCollision, track: 7, onset: 1, start: 1.2, end: 3, minimumTimeToCollision: 1.5, minimumHeadway: nil, minimumRange: 9),
            SafetyEvent(type: .forwardCollision, track: 9, onset: 20, start: 20.2, end: 21, minimumTimeToCollision: .nan, minimumHeadway: 0.5, minimumRange: 4),
            SafetyEvent(type: .cutIn, track: 3, onset: 30, start: 30.2, end: 32.2, minimumTimeToCollision: nil, minimumHeadway: nil, minimumRange: 11),
        ]
        let run = SafetyEventSummary(events: events, durationSeconds: 60, minimumTimeToCollision: 1.5, minimumHeadway: .infinity)
        var summary = RunSummary()
        summary.events = RunSummary.Events(run, finalReports: [reports[1]])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(summary)
        let parsed = try #require(try object(data)["events"] as? [String: Any])
        #expect(parsed["counts"] as? [String: Int] == ["forward_collision": 2, "close_following": 0, "cut_in": 1])
        // 3 events in a minute.
        #expect(parsed["per_hour"] as? Double == 180 && parsed["duration_s"] as? Double == 60)
        #expect(parsed["min_ttc_s"] as? Double == 1.5 && parsed["min_headway_s"] is NSNull)
        let finished = try #require(parsed["finished"] as? [[String: Any]])
        #expect(finished.map { $0["track"] as? Int } == [7, 9, 3] && finished[1]["min_ttc_s"] is NSNull)
        let finalReports = try codableForm([reports[1]])
        #expect(parsed["final_reports"] as? NSArray == finalReports)
        let decoded = try JSONDecoder().decode(RunSummary.self, from: data)
        #expect(decoded == summary && decoded.events?.total == 3)
        #expect(summary.events?.report == "2 forward collision, 0 close following, 1 cut-in; 180.0 per hour; worst TTC 1.50 s; worst headway —")
        // A summary without events leaves the key out.
        #expect(try object(try encoder.encode(RunSummary()))["events"] == nil)
    }

    @Test func foxgloveEventsMessageHoldsTheReportsAndItsSchemaTheirFields() throws {
        let encoder = FoxgloveEncoder()
        let message = encoder.endOfRunMessage(events: reports, timestamp: 12.25, index: 122)
        #expect(message.topic == .events && message.logTime == 12_250_000_000)
        let body = try object(message.data)
        #expect(body["end_of_run"] as? Bool == true && body["index"] as? Int == 122 && body["pts"] as? Double == 12.25)
        #expect(body["timestamp"] as? [String: Int] == ["sec": 12, "nsec": 250_000_000])
        let expected = try codableForm(reports)
        #expect(body["events"] as? NSArray == expected)
        let frame = try object(FoxgloveEncoder.events([], time: Foxglove.Time(seconds: 0.5), index: 5, pts: 0.5, endOfRun: false))
        #expect((frame["events"] as? [Any])?.isEmpty == true && frame["end_of_run"] as? Bool == false)

        let schema = try object(FoxgloveTopic.events.schema)
        #expect(schema["title"] as? String == "periphery.SafetyEvents")
        let properties = try #require(schema["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(body.keys))
        let items = try #require((properties["events"] as? [String: Any])?["items"] as? [String: Any])
        let fields = try #require(items["properties"] as? [String: [String: Any]])
        #expect(Set(fields.keys) == ["type", "phase", "track", "ttc_s", "headway_s", "range_m"])
        #expect(fields["type"]?["enum"] as? [String] == SafetyEventType.allCases.map(\.rawValue))
        #expect(fields["ttc_s"]?["type"] as? [String] == ["number", "null"])
    }
}
