import Foundation

extension ImageBoxReport: CustomStringConvertible {
    /// A Markdown table, a row per group and then "all": frames, counted vehicles, precision,
    /// recall, F1, false boxes per frame and TP / FP / FN.
    public var description: String {
        let header = [
            "| camera | frames | vehicles ≤ 40 m | precision | recall | F1 | false boxes / frame | TP / FP / FN |", "|---|---|---|---|---|---|---|---|",
        ]
        let rows = (groups + [overall]).map { g in
            let c = g.counts
            return "| \(g.name) | \(g.frames) | \(g.labelled) | \(Self.percent(c.precision)) | \(Self.percent(c.recall)) | "
                + "\(Self.percent(c.f1)) | \(String(format: "%.2f", g.falsePerFrame)) | "
                + "\(c.truePositives) / \(c.falsePositives) / \(c.falseNegatives) |"
        }
        return (header + rows).joined(separator: "\n")
    }

    /// A JSON object: `"all"` and `"cameras"` (an object per group, in order), each with `frames`,
    /// `vehicles`, `tp`, `fp`, `fn`, `precision`, `recall`, `f1` and `false_per_frame` (rates as
    /// fractions; a rate whose denominator is 0 is 0).
    public var json: String {
        let cameras = groups.map { "    \"\($0.name)\": \(Self.object($0))" }.joined(separator: ",\n")
        return "{\n  \"all\": \(Self.object(overall)),\n  \"cameras\": {\n\(cameras)\n  }\n}"
    }

    private static func object(_ g: Group) -> String {
        let c = g.counts
        return "{\"frames\": \(g.frames), \"vehicles\": \(g.labelled), \"tp\": \(c.truePositives), \"fp\": \(c.falsePositives), "
            + "\"fn\": \(c.falseNegatives), \"precision\": \(c.precision), \"recall\": \(c.recall), \"f1\": \(c.f1), "
            + "\"false_per_frame\": \(g.falsePerFrame)}"
    }

    private static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
}
