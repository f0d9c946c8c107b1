import Foundation

extension DetectionReport: CustomStringConvertible {
    /// The report as a Markdown table in the layout of the seed's key results; undefined values
    /// read "n/a".
    public var description: String {
        let rows: [(String, String)] = [
            ("precision", Self.percent(precision)),
            ("recall", Self.percent(recall)),
            ("F1", Self.percent(f1)),
            ("median centre error", Self.format(medianCentreError, "%.2f m")),
            ("median yaw error", Self.format(medianYawErrorDegrees, "%.1f°")),
            ("recall inside 10 m", Self.percent(recall10m)),
            ("precision inside 10 m", Self.percent(precision10m)),
            ("box-to-road contact error", Self.format(contactError, "%+.3f m")),
            ("TP / FP / FN", "\(counts.truePositives) / \(counts.falsePositives) / \(counts.falseNegatives)"),
            ("frames", "\(frames)"),
        ]
        return (["| result | value |", "|---|---|"] + rows.map { "| \($0.0) | \($0.1) |" })
            .joined(separator: "\n")
    }

    /// The report as a JSON object with exactly the keys `frames`, `precision`, `recall`, `f1`,
    /// `median_centre_error_m`, `median_yaw_error_deg`, `precision_10m`, `recall_10m` and
    /// `contact_error_m`, in that order; rates are fractions in [0, 1], and an undefined (nil or
    /// non-finite) value is `null`.
    public var json: String {
        let fields: [(String, String)] = [
            ("frames", "\(frames)"),
            ("precision", Self.number(precision)),
            ("recall", Self.number(recall)),
            ("f1", Self.number(f1)),
            ("median_centre_error_m", Self.number(medianCentreError)),
            ("median_yaw_error_deg", Self.number(medianYawErrorDegrees)),
            ("precision_10m", Self.number(precision10m)),
            ("recall_10m", Self.number(recall10m)),
            ("contact_error_m", Self.number(contactError)),
        ]
        return "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}"
    }

    private static func percent(_ value: Double) -> String {
        String(format: "%.1f%%", value * 100)
    }

    private static func format(_ value: Double?, _ pattern: String) -> String {
        guard let value, value.isFinite else { return "n/a" }
        return String(format: pattern, value)
    }

    private static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return "\(value)"
    }
}
