import Foundation
import Testing

@testable import PeripheryCore

/// The table and JSON renderings of `DetectionReport`.
struct EvaluationRenderingTests {
    /// The seed's key results: TP 723, FP 277, FN 313 →
    /// P = 723/1000 = 72.3 %, R = 723/1036 = 0.69788 → 69.8 %,
    /// F1 = 2·0.723·0.69788/(0.723 + 0.69788) = 0.71021 → 71.0 %.
    /// Inside 10 m: TP 80, FP 20, FN 40 → P 80 %, R 80/120 = 66.7 %.
    static let seed = DetectionReport(
        frames: 555,
        counts: MatchCounts(truePositives: 723, falsePositives: 277, falseNegatives: 313),
        countsInside10m: MatchCounts(truePositives: 80, falsePositives: 20, falseNegatives: 40),
        medianCentreError: 0.64, medianYawErrorDegrees: 3.2, contactError: -0.225
    )

    @Test func tableMatchesSeedLayout() {
        let expected = """
            | result | value |
            |---|---|
            | precision | 72.3% |
            | recall | 69.8% |
            | F1 | 71.0% |
            | median centre error | 0.64 m |
            | median yaw error | 3.2° |
            | recall inside 10 m | 66.7% |
            | precision inside 10 m | 80.0% |
            | box-to-road contact error | -0.225 m |
            | TP / FP / FN | 723 / 277 / 313 |
            | frames | 555 |
            """
        #expect(Self.seed.description == expected)
    }

    @Test func tableShowsUndefinedAsNotAvailable() {
        let table = DetectionEvaluation().report.description
        #expect(table.contains("| precision | 0.0% |"))
        #expect(table.contains("| median centre error | n/a |"))
        #expect(table.contains("| median yaw error | n/a |"))
        #expect(table.contains("| box-to-road contact error | n/a |"))
        #expect(table.contains("| frames | 0 |"))
    }

    /// A positive contact error carries its sign: z 1.0, h 1.5 → +0.250 m.
    @Test func tableSignsContactError() {
        var eval = DetectionEvaluation()
        eval.add(predictions: [EvalBox.pred(10, 0, z: 1.0, height: 1.5)], groundTruth: [EvalBox.gt(10, 0)])
        #expect(eval.report.description.contains("| box-to-road contact error | +0.250 m |"))
    }

    static let keys: Set<String> = [
        "frames", "precision", "recall", "f1", "median_centre_error_m", "median_yaw_error_deg",
        "precision_10m", "recall_10m", "contact_error_m",
    ]

    static func object(_ json: String) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8))
        return try #require(parsed as? [String: Any])
    }

    @Test func jsonHasExactlyTheKeysAndValues() throws {
        let json = Self.seed.json
        let object = try Self.object(json)
        #expect(Set(object.keys) == Self.keys)
        #expect(object["frames"] as? Int == 555)
        #expect(object["precision"] as? Double == 0.723)
        #expect(abs((object["recall"] as? Double ?? -1) - 723.0 / 1036.0) < 1e-15)
        #expect(abs((object["f1"] as? Double ?? -1) - Self.seed.f1) < 1e-15)
        #expect(object["median_centre_error_m"] as? Double == 0.64)
        #expect(object["median_yaw_error_deg"] as? Double == 3.2)
        #expect(object["precision_10m"] as? Double == 0.8)
        #expect(abs((object["recall_10m"] as? Double ?? -1) - 2.0 / 3.0) < 1e-15)
        #expect(object["contact_error_m"] as? Double == -0.225)
        // Keys appear once each, in the documented order.
        let order = [
            "\"frames\"", "\"precision\"", "\"recall\"", "\"f1\"", "\"median_centre_error_m\"",
            "\"median_yaw_error_deg\"", "\"precision_10m\"", "\"recall_10m\"", "\"contact_error_m\"",
        ]
        let positions = order.compactMap { json.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count)
        #expect(positions == positions.sorted())
    }

    /// Undefined medians are JSON null (not NaN, not absent); rates with 0/0 are 0.
    @Test func jsonNullForUndefined() throws {
        let object = try Self.object(DetectionEvaluation().report.json)
        #expect(Set(object.keys) == Self.keys)
        #expect(object["frames"] as? Int == 0)
        #expect(object["precision"] as? Double == 0)
        #expect(object["f1"] as? Double == 0)
        #expect(object["median_centre_error_m"] is NSNull)
        #expect(object["median_yaw_error_deg"] is NSNull)
        #expect(object["contact_error_m"] is NSNull)
        // A non-finite value (only reachable through the public initialiser) is null too.
        var odd = Self.seed
        odd.medianYawErrorDegrees = .nan
        #expect(try Self.object(odd.json)["median_yaw_error_deg"] is NSNull)
    }
}
