import Foundation
import PeripheryEvents

extension RunSummary {
    /// The safety events of a run (`docs/guides/events.md`), as the summary line's `events` object:
    /// `counts` per type (every type, 0 included), `per_hour` (all types), `min_ttc_s`,
    /// `min_headway_s`, `duration_s`, the `finished` events and the `final_reports`.
    public struct Events: Sendable, Equatable, Codable {
        /// Events per type; every type has an entry.
        public var counts: [SafetyEventType: Int]
        /// Events of every type per hour of `durationSeconds`; `nil` for a run of no duration.
        public var perHour: Double?
        /// The worst time to collision of the in-path lead, seconds (`SafetyEventSummary`'s rule).
        public var minimumTimeToCollision: Double?
        /// The worst time headway to the in-path lead, seconds.
        public var minimumHeadway: Double?
        /// The time the frames spanned, seconds: what the rate is per.
        public var durationSeconds: Double
        /// Every event, in the order they ended.
        public var finished: [SafetyEvent]
        /// The `end` reports of the events still on when the run ended: the run's end ends them at
        /// its last frame, whose line was already written, so the summary carries them.
        public var finalReports: [SafetyEventReport]

        /// The figures of `summary` (taken after `PerceptionEngine.finishEvents()`, whose reports are
        /// `finalReports`). A figure that is not finite is left out, as JSON cannot hold it.
        public init(_ summary: SafetyEventSummary, finalReports: [SafetyEventReport]) {
            counts = Dictionary(uniqueKeysWithValues: SafetyEventType.allCases.map { ($0, summary.count($0)) })
            perHour = Self.finite(summary.eventsPerHour)
            minimumTimeToCollision = Self.finite(summary.minimumTimeToCollision)
            minimumHeadway = Self.finite(summary.minimumHeadway)
            durationSeconds = summary.durationSeconds.isFinite ? summary.durationSeconds : 0
            finished = summary.events.map(Self.finite)
            self.finalReports = finalReports.map(Self.finite)
        }

        /// The events of every type.
        public var total: Int { counts.values.reduce(0, +) }

        /// The events as one line for people: counts, rate and worst figures.
        public var report: String {
            let names: [SafetyEventType: String] = [.forwardCollision: "forward collision", .closeFollowing: "close following", .cutIn: "cut-in"]
            var parts = [SafetyEventType.allCases.map { "\(counts[$0] ?? 0) \(names[$0] ?? $0.rawValue)" }.joined(separator: ", ")]
            if let perHour { parts.append(String(format: "%.1f per hour", perHour)) }
            parts.append("worst TTC " + (minimumTimeToCollision.map { String(format: "%.2f s", $0) } ?? "—"))
            parts.append("worst headway " + (minimumHeadway.map { String(format: "%.2f s", $0) } ?? "—"))
            return parts.joined(separator: "; ")
        }

        private enum CodingKeys: String, CodingKey {
            case counts, finished
            case perHour = "per_hour"
            case minimumTimeToCollision = "min_ttc_s"
            case minimumHeadway = "min_headway_s"
            case durationSeconds = "duration_s"
            case finalReports = "final_reports"
        }

        /// A key of `counts`: a type's name.
        private struct TypeKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let countsContainer = try container.nestedContainer(keyedBy: TypeKey.self, forKey: .counts)
            var counts: [SafetyEventType: Int] = [:]
            for key in countsContainer.allKeys {
                guard let type = SafetyEventType(rawValue: key.stringValue) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: countsContainer, debugDescription: "\(key.stringValue) is not a safety event type")
                }
                counts[type] = try countsContainer.decode(Int.self, forKey: key)
            }
            self.counts = counts
            perHour = try container.decodeIfPresent(Double.self, forKey: .perHour)
            minimumTimeToCollision = try container.decodeIfPresent(Double.self, forKey: .minimumTimeToCollision)
            minimumHeadway = try container.decodeIfPresent(Double.self, forKey: .minimumHeadway)
            durationSeconds = try container.decode(Double.self, forKey: .durationSeconds)
            finished = try container.decode([SafetyEvent].self, forKey: .finished)
            finalReports = try container.decode([SafetyEventReport].self, forKey: .finalReports)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var countsContainer = container.nestedContainer(keyedBy: TypeKey.self, forKey: .counts)
            for type in SafetyEventType.allCases { try countsContainer.encode(counts[type] ?? 0, forKey: TypeKey(stringValue: type.rawValue)) }
            // Unknown figures as null, so that every summary has the same keys.
            try container.encode(perHour, forKey: .perHour)
            try container.encode(minimumTimeToCollision, forKey: .minimumTimeToCollision)
            try container.encode(minimumHeadway, forKey: .minimumHeadway)
            try container.encode(durationSeconds, forKey: .durationSeconds)
            try container.encode(finished, forKey: .finished)
            try container.encode(finalReports, forKey: .finalReports)
        }

        private static func finite(_ x: Double?) -> Double? { x.flatMap { $0.isFinite ? $0 : nil } }

        private static func finite(_ event: SafetyEvent) -> SafetyEvent {
            var event = event
            event.minimumTimeToCollision = finite(event.minimumTimeToCollision)
            event.minimumHeadway = finite(event.minimumHeadway)
            event.minimumRange = finite(event.minimumRange)
            return event
        }

        private static func finite(_ report: SafetyEventReport) -> SafetyEventReport {
            var report = report
            report.timeToCollision = finite(report.timeToCollision)
            report.headway = finite(report.headway)
            report.range = finite(report.range)
            return report
        }
    }
}
