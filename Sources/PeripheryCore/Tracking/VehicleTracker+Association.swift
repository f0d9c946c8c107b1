import Foundation

extension VehicleTracker {
    /// Cost of a pair outside the Euclidean gate (never accepted).
    static let forbiddenCost = 1e6

    // MARK: Overlap suppression (§8.4 steps 1 and 10)

    /// The detections that do not overlap a nearer kept detection of the same family, in input
    /// order. Nearer first; equal ranges by score descending, then by index.
    func suppressOverlappingDetections(_ detections: [Detection]) -> [Detection] {
        guard detections.count >= 2 else { return detections }
        let ranges = detections.map { hypot($0.box.x, $0.box.y) }
        let order = detections.indices.sorted { a, b in
            if ranges[a] != ranges[b] { return ranges[a] < ranges[b] }
            if detections[a].score != detections[b].score { return detections[a].score > detections[b].score }
            return a < b
        }
        let boxes = detections.map { OverlapSuppression.Box(box: $0.box, label: $0.label) }
        let keep = OverlapSuppression.survivors(boxes, order: order, shrink: configuration.overlapShrink)
        return detections.indices.filter { keep[$0] }.map { detections[$0] }
    }

    /// Drops tracks that overlap a nearer kept track of the same family (equal ranges: more hits
    /// first, then lower id) and returns how many were dropped. Survivors keep their order.
    mutating func suppressOverlappingTracks() -> Int {
        guard tracks.count >= 2 else { return 0 }
        let ranges = tracks.map(\.range)
        let order = tracks.indices.sorted { a, b in
            if ranges[a] != ranges[b] { return ranges[a] < ranges[b] }
            if tracks[a].hits != tracks[b].hits { return tracks[a].hits > tracks[b].hits }
            return tracks[a].id < tracks[b].id
        }
        let boxes = tracks.map { OverlapSuppression.Box(box: $0.box, label: $0.label) }
        let keep = OverlapSuppression.survivors(boxes, order: order, shrink: configuration.overlapShrink)
        let before = tracks.count
        tracks = tracks.indices.filter { keep[$0] }.map { tracks[$0] }
        return before - tracks.count
    }

    // MARK: Prediction (§8.4 step 2)

    /// Moves every track by its own predicted motion over `dt` and then into the new ego frame.
    /// Uses the pose before it advances (the velocity is rotated by the old ego heading).
    mutating func predict(_ ego: EgoDelta) {
        let dt = max(ego.dt, 1e-3)
        let c = cos(-ego.dyaw), s = sin(-ego.dyaw)
        for i in tracks.indices {
            let v = egoVelocity(tracks[i]) ?? .zero
            let tx = tracks[i].box.x + v.x * dt - ego.dx
            let ty = tracks[i].box.y + v.y * dt - ego.dy
            tracks[i].box.x = c * tx - s * ty
            tracks[i].box.y = s * tx + c * ty
            tracks[i].box.yaw -= ego.dyaw
            tracks[i].age += 1
        }
    }

    // MARK: Association (§8.4 step 4)

    /// Track–detection pairs of the optimal assignment that pass the gate, sorted by track index.
    func match(_ detections: [Detection], dt: Double, egoStep: Double) -> [HungarianAssignment.Pair] {
        guard !tracks.isEmpty, !detections.isEmpty else { return [] }
        var costs = [[Double]](
            repeating: [Double](repeating: Self.forbiddenCost, count: detections.count), count: tracks.count)
        for (i, track) in tracks.enumerated() {
            let motion = motionSigma(track, egoStep: egoStep)
            let gate = gateMetres(dt: dt, misses: track.misses) + motion
            for (j, d) in detections.enumerated() where hypot(d.box.x - track.box.x, d.box.y - track.box.y) <= gate {
                // A non-finite distance (degenerate input) stays forbidden rather than reach the solver.
                let cost = normalizedDistance(track, d, motion: motion)
                if cost.isFinite { costs[i][j] = cost }
            }
        }
        let limit = configuration.rangeAwareGate ? configuration.gateSigmas : gateMetres(dt: dt)
        return HungarianAssignment.solve(costs).filter { costs[$0.row][$0.column] < limit }
    }

    /// Euclidean gate radius, `(floor + speed·max(dt, 0))·(1 + misses)`, metres.
    func gateMetres(dt: Double, misses: Int = 0) -> Double {
        (configuration.gateFloor + configuration.gateSpeed * max(dt, 0)) * Double(1 + misses)
    }

    /// Extra position uncertainty of a track whose velocity is not known yet: the ego step.
    func motionSigma(_ track: VehicleTrack, egoStep: Double) -> Double {
        let known: Bool
        if configuration.predictionObservations != nil {
            known = track.worldVelocity(over: configuration.baselineSeconds) != nil
        } else {
            known = predictionVelocity(track) != nil
        }
        return known ? 0 : egoStep
    }

    /// Radial and lateral localisation noise at a position, and its range.
    func sigmas(x: Double, y: Double) -> (radial: Double, lateral: Double, range: Double) {
        let range = hypot(x, y)
        return (
            configuration.sigmaRadialA + configuration.sigmaRadialB * range,
            configuration.sigmaLateralA + configuration.sigmaLateralB * range, range
        )
    }

    /// Anisotropic normalised distance: the offset split along and across the track's bearing,
    /// each over its noise widened by the motion uncertainty (the lateral by a quarter of it).
    /// Plain metres when the range-aware gate is off.
    func normalizedDistance(_ track: VehicleTrack, _ d: Detection, motion: Double) -> Double {
        let dx = d.box.x - track.box.x, dy = d.box.y - track.box.y
        guard configuration.rangeAwareGate else { return hypot(dx, dy) }
        let sigma = sigmas(x: track.box.x, y: track.box.y)
        let radialSigma = hypot(sigma.radial, motion)
        let lateralSigma = hypot(sigma.lateral, 0.25 * motion)
        guard sigma.range >= 1e-6 else { return hypot(dx / radialSigma, dy / lateralSigma) }
        let cosBearing = track.box.x / sigma.range, sinBearing = track.box.y / sigma.range
        let radial = dx * cosBearing + dy * sinBearing
        let lateral = -dx * sinBearing + dy * cosBearing
        return hypot(radial / radialSigma, lateral / lateralSigma)
    }
}
