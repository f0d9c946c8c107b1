import Foundation

extension SafetyEventEvaluationReport: CustomStringConvertible {
    /// The report as tables: the drives, the NHTSA tests, free flow, and the errors.
    public var description: String {
        var lines: [String] = []
        if !drives.isEmpty {
            lines.append(row("drive", "scenario", "ego m/s", "seen at", "warning", "true TTC", "our TTC", "required", "in time", "other"))
            for d in drives {
                lines.append(
                    row(
                        d.drive, d.scenario.kind.rawValue, Self.number(d.scenario.egoSpeed, "%.2f"), Self.number(d.firstSightRange, "%.1f m"),
                        Self.number(d.warning?.time, "%.1f s"), Self.number(d.warning?.trueTimeToCollision, "%.2f s"),
                        Self.number(d.warning?.timeToCollision, "%.2f s"), Self.number(d.requiredTimeToCollision, "%.1f s"),
                        d.inTime.map { $0 ? "yes" : "no" } ?? "-", "\(d.otherWarnings)"))
            }
        }
        if !tests.isEmpty {
            lines.append("")
            lines.append("NHTSA forward collision warning tests (NCAP 2013): a test passes when 5 of 7 trials warn at the required TTC or above")
            lines.append(
                row("test", "ego m/s", "lead m/s", "gap m", "decel m/s²", "trials", "in time", "required", "result", "true TTC at each warning, s"))
            for t in tests {
                let s = t.scenario
                lines.append(
                    row(
                        s.kind.rawValue, Self.number(s.egoSpeed, "%.2f"), Self.number(s.leadSpeed, "%.2f"), Self.number(s.gap, "%.1f"),
                        Self.number(s.leadDeceleration, "%.3f"), "\(t.trials)", "\(t.inTime)", Self.number(t.requiredTimeToCollision, "%.1f s"),
                        t.passed ? "pass" : "FAIL", t.warningTimesToCollision.map { Self.number($0, "%.2f") }.joined(separator: " ")))
            }
        }
        lines.append("")
        lines.append(
            String(
                format: "free flow: %d drives, %.3f h, %d forward-collision warnings (%@ per hour)", freeFlow.drives, freeFlow.hours,
                freeFlow.warnings, Self.number(freeFlow.warningsPerHour, "%.2f")))
        if cutIns.drives > 0 {
            lines.append(
                "cut-ins: \(cutIns.inTime) of \(cutIns.drives) detected within \(Self.number(cutIns.tolerance, "%g")) s of the true entry; "
                    + "start less entry: " + cutIns.delays.map { Self.number($0, "%+.1f s") }.joined(separator: " "))
        }
        let window = Self.number(errorWindow, "%g")
        lines.append("TTC error where the true TTC < \(window) s: " + Self.describe(timeToCollisionError))
        lines.append("headway error where both have one: " + Self.describe(headwayError))
        lines.append("headway error where the true TTC < \(window) s: " + Self.describe(headwayErrorInWindow))
        return lines.joined(separator: "\n")
    }

    private func row(_ first: String, _ cells: String...) -> String {
        first.padding(toLength: max(first.count, 24), withPad: " ", startingAt: 0) + " "
            + cells.map { $0.padding(toLength: max($0.count, 9), withPad: " ", startingAt: 0) }.joined(separator: " ")
    }

    private static func describe(_ spread: Spread) -> String {
        guard let median = spread.median, let p90 = spread.p90, let bias = spread.bias else {
            return "no frames (\(spread.missed) missed)"
        }
        return String(format: "median %.3f s, p90 %.3f s, bias %+.3f s over %d frames (%d missed)", median, p90, bias, spread.frames, spread.missed)
    }

    private static func number(_ value: Double?, _ format: String) -> String {
        value.map { String(format: format, $0) } ?? "-"
    }
}
