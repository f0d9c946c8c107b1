import Foundation

/// The scenario and in-path lead entries of `truth.json`.
extension SyntheticDriveRecorder {
    /// `{"name", "ego_speed_m_s", "lead_speed_m_s", "gap_m", "lead_decel_m_s2", "lead_brake_onset_s",
    /// "lane_change_start_s", "lane_change_duration_s"}`, null where the scenario has no such thing.
    static func json(_ scenario: SyntheticScenario) -> [String: Any] {
        let cutIn = scenario.kind == .cutIn
        return [
            "name": scenario.kind.rawValue, "ego_speed_m_s": nullable(scenario.egoSpeed), "lead_speed_m_s": nullable(scenario.leadSpeed),
            "gap_m": nullable(scenario.gap), "lead_decel_m_s2": nullable(scenario.leadDeceleration),
            "lead_brake_onset_s": nullable(scenario.leadDeceleration == nil ? nil : SyntheticScenario.leadBrakeOnset),
            "lane_change_start_s": nullable(cutIn ? SyntheticScenario.laneChangeStart : nil),
            "lane_change_duration_s": nullable(cutIn ? SyntheticScenario.laneChangeDuration : nil),
        ]
    }

    /// `{"id", "range_m", "closing_speed_m_s", "closing_acceleration_m_s2", "ttc_s", "headway_s"}`, or null.
    static func json(_ lead: InPathLeadTruth?) -> Any {
        guard let lead else { return NSNull() }
        return [
            "id": lead.id, "range_m": lead.range, "closing_speed_m_s": lead.closingSpeed,
            "closing_acceleration_m_s2": lead.closingAcceleration, "ttc_s": nullable(lead.timeToCollision),
            "headway_s": nullable(lead.headway),
        ]
    }

    /// A JSON value that is null where there is none.
    static func nullable<Value>(_ value: Value?) -> Any { value.map { $0 as Any } ?? NSNull() }
}
