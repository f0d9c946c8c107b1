import Foundation
import Testing

@testable import PeripheryEvents

/// The JSON forms that outputs write: exactly the agreed keys, unknown figures as null.
struct ReportCodingTests {
    private func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func reportHasTheSidecarKeys() throws {
        let report = SafetyEventReport(type: .forwardCollision, phase: .start, track: 7, timeToCollision: 2.5, headway: nil, range: 22.25)
        #expect(try json(report) == #"{"headway_s":null,"phase":"start","range_m":22.25,"track":7,"ttc_s":2.5,"type":"forward_collision"}"#)
        let decoded = try JSONDecoder().decode(SafetyEventReport.self, from: Data(try json(report).utf8))
        #expect(decoded == report)
        // A line without the optional keys reads as unknown figures.
        let sparse = try JSONDecoder().decode(SafetyEventReport.self, from: Data(#"{"type":"cut_in","phase":"end","track":3}"#.utf8))
        #expect(sparse == SafetyEventReport(type: .cutIn, phase: .end, track: 3, timeToCollision: nil, headway: nil, range: nil))
    }

    @Test func namesOfTypesAndPhases() {
        #expect(SafetyEventType.allCases.map(\.rawValue) == ["forward_collision", "close_following", "cut_in"])
        #expect(SafetyEventPhase.allCases.map(\.rawValue) == ["start", "update", "end"])
    }

    @Test func finishedEventHasItsKeys() throws {
        let event = SafetyEvent(
            type: .closeFollowing, track: 2, onset: 1, start: 6, end: 9.5, minimumTimeToCollision: nil, minimumHeadway: 0.75, minimumRange: 15)
        #expect(
            try json(event)
                == #"{"end_s":9.5,"min_headway_s":0.75,"min_range_m":15,"min_ttc_s":null,"onset_s":1,"start_s":6,"track":2,"type":"close_following"}"#)
        #expect(try JSONDecoder().decode(SafetyEvent.self, from: Data(try json(event).utf8)) == event)
    }
}
