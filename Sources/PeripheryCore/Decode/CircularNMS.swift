/// Greedy non-maximum suppression by BEV centre distance, over all classes together.
public enum CircularNMS {
    /// Returns the kept detections in keeper order (descending score).
    ///
    /// Candidates are ranked by score descending; equal scores keep their input order (stable, as
    /// the reference's `argsort(stable=True)`). Each keeper suppresses every remaining candidate
    /// with `dx² + dy² < radius²` — strictly less, so one exactly at the radius survives.
    public static func suppress(_ detections: [Detection], radius: Double) -> [Detection] {
        let order = detections.indices.sorted { a, b in
            let sa = detections[a].score, sb = detections[b].score
            return sa != sb ? sa > sb : a < b
        }
        let r2 = radius * radius
        var suppressed = [Bool](repeating: false, count: detections.count)
        var kept: [Detection] = []
        for (rank, i) in order.enumerated() where !suppressed[i] {
            let keeper = detections[i]
            kept.append(keeper)
            for j in order[(rank + 1)...] where !suppressed[j] {
                let dx = detections[j].x - keeper.x, dy = detections[j].y - keeper.y
                if dx * dx + dy * dy < r2 { suppressed[j] = true }
            }
        }
        return kept
    }
}
