import Foundation

/// The tracker's internal state for one vehicle (reference `Track`, `docs/reference/tracker.md#83-internal-state`).
///
/// Position and yaw are in the current ego frame; `world` holds recent observed positions in the
/// tracker's world frame, from which the velocities are estimated.
struct VehicleTrack: Sendable {
    /// One observed position in the world frame.
    struct WorldSample: Sendable, Hashable {
        var t: Double
        var x: Double
        var y: Double
    }

    /// One observed box size.
    struct Shape: Sendable, Hashable {
        var length: Double
        var width: Double
        var height: Double
    }

    /// Longest shape history kept.
    ///
    /// The reference keeps every observed shape for the life of the track, so a vehicle followed
    /// for a long drive grows its history (and the per-frame median sort) without limit. Only the
    /// newest `shapeHistoryLimit` shapes are kept here. A track needs more than this many matched
    /// detections (25 s at 10 Hz of continuous observation) before the window slides, and the
    /// conformance fixture's longest track has 72 hits, so its results are those of the unbounded
    /// history; past that point the shape is the robust shape of the most recent 256 observations.
    static let shapeHistoryLimit = 256

    var id: Int
    /// The latest matched pose with the robust shape.
    var box: VehicleBox
    var label: Int
    var score: Float
    var hits = 1
    var age = 0
    var misses = 0
    var firstT: Double
    var lastSeenT: Double
    var state = TrackedVehicle.MotionState.unknown
    var parkedVotes = 0
    var outputWorldVelocity: SIMD2<Double>?
    var world: [WorldSample] = []
    private(set) var shapes: [Shape]

    /// A newborn track at a detection, seen at time `t`.
    init(id: Int, detection d: Detection, t: Double) {
        self.id = id
        box = d.box
        label = d.label
        score = d.score
        firstT = t
        lastSeenT = t
        shapes = [Shape(length: d.box.length, width: d.box.width, height: d.box.height)]
    }

    /// Whether a detection matched this frame.
    var observed: Bool { misses == 0 }

    /// Ground-plane range from the ego origin.
    var range: Double { hypot(box.x, box.y) }

    /// Takes over a matched detection's pose, label and score and updates the robust shape.
    mutating func update(with d: Detection, t: Double) {
        box.x = d.box.x
        box.y = d.box.y
        box.z = d.box.z
        box.yaw = d.box.yaw
        if shapes.count >= Self.shapeHistoryLimit { shapes.removeFirst(shapes.count - Self.shapeHistoryLimit + 1) }
        shapes.append(Shape(length: d.box.length, width: d.box.width, height: d.box.height))
        let shape = Self.robustShape(shapes)
        box.length = shape.length
        box.width = shape.width
        box.height = shape.height
        label = d.label
        score = d.score
        hits += 1
        misses = 0
        lastSeenT = t
    }

    // MARK: Velocities (world frame, §8.5)

    /// Two-sample velocity over about `baseline` seconds: from the latest sample at least `baseline`
    /// older than the last (or the first sample) to the last; `nil` if the span is below
    /// `0.8·baseline` or there are fewer than 2 samples.
    func worldVelocity(over baseline: Double) -> SIMD2<Double>? {
        guard world.count >= 2, let end = world.last, var start = world.first else { return nil }
        let cutoff = end.t - baseline
        for sample in world {
            guard sample.t <= cutoff else { break }
            start = sample
        }
        let span = end.t - start.t
        guard span >= 0.8 * baseline else { return nil }
        return SIMD2((end.x - start.x) / span, (end.y - start.y) / span)
    }

    /// Two-sample velocity across the last `observations` samples; `nil` with fewer samples or a
    /// zero span.
    func worldVelocity(observations: Int) -> SIMD2<Double>? {
        guard observations >= 2, world.count >= observations, let end = world.last else { return nil }
        let start = world[world.count - observations]
        let span = end.t - start.t
        guard span > 0 else { return nil }
        return SIMD2((end.x - start.x) / span, (end.y - start.y) / span)
    }

    /// Least-squares slope of position against time over the last `observations` samples; `nil`
    /// with fewer samples or equal timestamps.
    func fittedWorldVelocity(observations: Int) -> SIMD2<Double>? {
        guard observations >= 2, world.count >= observations else { return nil }
        let samples = world.suffix(observations)
        let n = Double(observations)
        let meanT = samples.reduce(0) { $0 + $1.t } / n
        let denominator = samples.reduce(0) { $0 + ($1.t - meanT) * ($1.t - meanT) }
        guard denominator > 0 else { return nil }
        let meanX = samples.reduce(0) { $0 + $1.x } / n
        let meanY = samples.reduce(0) { $0 + $1.y } / n
        let vx = samples.reduce(0) { $0 + ($1.t - meanT) * ($1.x - meanX) } / denominator
        let vy = samples.reduce(0) { $0 + ($1.t - meanT) * ($1.y - meanY) } / denominator
        return SIMD2(vx, vy)
    }

    /// Time covered by the last `observations` samples (at least 1 ms), or `nil` with fewer.
    func sampleSpan(observations: Int) -> Double? {
        guard observations >= 1, world.count >= observations, let last = world.last else { return nil }
        return max(last.t - world[world.count - observations].t, 1e-3)
    }

    /// Appends an observed world position.
    mutating func record(_ sample: WorldSample) {
        world.append(sample)
    }

    /// Drops samples older than `cutoff` when the oldest one is.
    mutating func prune(before cutoff: Double) {
        if let first = world.first, first.t < cutoff {
            world.removeAll { $0.t < cutoff }
        }
    }

    // MARK: Shape

    /// The observed shape closest to the per-dimension medians in summed absolute log ratio (each
    /// value floored at 1 mm); the earliest of equally close shapes wins.
    static func robustShape(_ shapes: [Shape]) -> Shape {
        precondition(!shapes.isEmpty, "robustShape needs a shape")
        let target = Shape(
            length: median(shapes.map(\.length)), width: median(shapes.map(\.width)),
            height: median(shapes.map(\.height)))
        var best = shapes[0]
        var bestDistance = distance(best, target)
        for shape in shapes.dropFirst() {
            let d = distance(shape, target)
            if d < bestDistance {
                best = shape
                bestDistance = d
            }
        }
        return best
    }

    /// Median; the mean of the middle two for an even count.
    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// `|ln(l/l̃)| + |ln(w/w̃)| + |ln(h/h̃)|` with every value floored at 1e-3.
    private static func distance(_ s: Shape, _ t: Shape) -> Double {
        func term(_ a: Double, _ b: Double) -> Double { abs(log(max(a, 1e-3) / max(b, 1e-3))) }
        return term(s.length, t.length) + term(s.width, t.width) + term(s.height, t.height)
    }
}
