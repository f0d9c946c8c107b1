/// The structured world's cast shadows: how much direct sunlight reaches a point past the scene's
/// props, vehicles and crowns.
///
/// A point is in a caster's shadow when the ray from it towards the sun meets the caster. Every
/// point the camera sees has z ≥ 0, so a caster can shade only points inside the solid swept from
/// it down to its shadow on the road; the screen rectangle of that solid culls the casters tested
/// for each pixel, as the scene's own rectangles cull its boxes.
struct SunShadows {
    let sun: SIMD3<Double>
    let props: [SyntheticBox]
    let vehicleBounds: [SyntheticBox]
    let vehicleParts: [[SyntheticBox]]
    let crowns: [FoliageCrown]
    let propRects: [ScreenRect?]
    let vehicleRects: [ScreenRect?]
    let crownRects: [ScreenRect?]
    let seed: UInt64

    init(_ scene: SyntheticScene, labeller: SceneLabeller, seed: UInt64) {
        sun = scene.sunDirection
        props = scene.props
        vehicleBounds = scene.vehicles.map(\.bounds)
        vehicleParts = scene.vehicles.map(\.parts)
        crowns = scene.crowns
        self.seed = seed
        let sun = scene.sunDirection
        func rect(_ corners: [SIMD3<Double>]) -> ScreenRect? {
            guard sun.z > 0.01 else { return nil }
            let cast = corners.map { c in SIMD3(c.x - c.z / sun.z * sun.x, c.y - c.z / sun.z * sun.y, 0) }
            return labeller.projectedRectangle(corners + cast).map(ScreenRect.init)
        }
        propRects = scene.props.map { rect($0.corners) }
        vehicleRects = vehicleBounds.map { rect($0.corners) }
        crownRects = crowns.map { rect($0.corners) }
    }

    /// The casters whose shadow rectangles cover pixel row `row`.
    func candidates(row: Int) -> RowCandidates {
        RowCandidates(row: row, vehicles: vehicleRects, props: propRects, crowns: crownRects)
    }

    /// The share of direct sunlight that reaches `point`, seen through pixel column `column`: 0
    /// behind a solid, a dappled 5–85 % through leaves, else 1.
    func sunlight(at point: SIMD3<Double>, column: Int, candidates: RowCandidates) -> Double {
        guard sun.z > 0.01 else { return 0 }
        let u = Double(column) + 0.5
        for i in candidates.props {
            guard let rect = propRects[i], rect.coversColumn(u) else { continue }
            if props[i].intersect(origin: point, direction: sun, tMax: .infinity) != nil { return 0 }
        }
        for i in candidates.vehicles {
            guard let rect = vehicleRects[i], rect.coversColumn(u),
                vehicleBounds[i].intersect(origin: point, direction: sun, tMax: .infinity) != nil
            else { continue }
            if vehicleParts[i].contains(where: { $0.intersect(origin: point, direction: sun, tMax: .infinity) != nil }) { return 0 }
        }
        var light = 1.0
        for i in candidates.crowns {
            guard let rect = crownRects[i], rect.coversColumn(u),
                let t = crowns[i].intersect(origin: point, direction: sun, tMax: .infinity)
            else { continue }
            // Gaps between leaves, fixed to the crown: a sun fleck where the noise is high.
            let leaves = SurfaceNoise.solid(seed &+ UInt64(i), (point + t * sun) * 2.2)
            let gap = max(0, min(1, (leaves - 0.55) / 0.15))
            light *= 0.05 + 0.8 * gap
        }
        return light
    }
}
