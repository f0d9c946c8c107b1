/// Greedy non-maximum suppression by BEV centre distance, over all classes together.
enum CircularNMS {
    /// Returns the kept detections in keeper order (descending score).
    ///
    /// Candidates are ranked by score descending; equal scores keep their input order (stable, as
    /// the reference's `argsort(stable=True)`); NaN scores rank last. Each keeper suppresses every
    /// remaining candidate with `dx² + dy² < radius²` — strictly less, so one exactly at the
    /// radius survives.
    static func suppress(_ detections: [Detection], radius: Double) -> [Detection] {
        var order: [Int] = [], suppressed: [Bool] = [], kept: [Detection] = []
        suppress(detections, radius: radius, order: &order, suppressed: &suppressed, into: &kept)
        return kept
    }

    /// ``suppress(_:radius:)`` into `kept` (replacing its contents), with `order` and `suppressed`
    /// as reusable scratch: nothing is allocated once they and `kept` have the capacity.
    static func suppress(
        _ detections: [Detection], radius: Double, order: inout [Int], suppressed: inout [Bool],
        into kept: inout [Detection]
    ) {
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: detections.indices)
        suppressed.removeAll(keepingCapacity: true)
        suppressed.append(contentsOf: repeatElement(false, count: detections.count))
        kept.removeAll(keepingCapacity: true)
        // Heapsort rather than `sort`, whose merge needs a scratch buffer; the ranking is a total
        // order (ties broken by index), so any correct sort gives the stable argsort's order.
        order.withUnsafeMutableBufferPointer { order in
            heapSort(order) { a, b in ranksBefore(detections[a].score, a, detections[b].score, b) }
        }
        let r2 = radius * radius
        for rank in order.indices where !suppressed[order[rank]] {
            let keeper = detections[order[rank]]
            kept.append(keeper)
            for j in order[(rank + 1)...] where !suppressed[j] {
                let dx = detections[j].box.x - keeper.box.x, dy = detections[j].box.y - keeper.box.y
                if dx * dx + dy * dy < r2 { suppressed[j] = true }
            }
        }
    }

    /// Whether candidate `a` (score `sa`) ranks before `b`: higher score first, NaN last, ties by index.
    static func ranksBefore(_ sa: Float, _ a: Int, _ sb: Float, _ b: Int) -> Bool {
        if sa.isNaN || sb.isNaN { return sa.isNaN == sb.isNaN ? a < b : sb.isNaN }
        return sa != sb ? sa > sb : a < b
    }

    /// Sorts `items` in place so that `before(x, y)` holds for every earlier `x`; `before` must be
    /// a strict total order.
    static func heapSort(_ items: UnsafeMutableBufferPointer<Int>, by before: (Int, Int) -> Bool) {
        // A max-heap under `before`'s reverse keeps the item that sorts last at the root.
        func siftDown(_ start: Int, _ end: Int) {
            var root = start
            while true {
                var child = 2 * root + 1
                guard child < end else { return }
                if child + 1 < end && before(items[child], items[child + 1]) { child += 1 }
                guard before(items[root], items[child]) else { return }
                items.swapAt(root, child)
                root = child
            }
        }
        let n = items.count
        for start in stride(from: n / 2 - 1, through: 0, by: -1) { siftDown(start, n) }
        for end in stride(from: n - 1, to: 0, by: -1) {
            items.swapAt(0, end)
            siftDown(0, end)
        }
    }
}
