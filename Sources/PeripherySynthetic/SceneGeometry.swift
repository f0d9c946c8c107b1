import PeripheryCore

/// What a camera ray hit: the nearest box (with the vehicle it belongs to, −1 for props), or a
/// foliage crown, or the ground at `t`, or nothing (`t` infinite: the sky).
struct RayHit {
    var t = Double.infinity
    var box: SyntheticBox?
    var info: BoxHit?
    var vehicle: Int32 = -1
    /// The index of the crown hit, if the nearest surface is foliage.
    var crown: Int?
}

/// The vehicles, props and crowns whose screen rectangles cover one pixel row.
struct RowCandidates {
    var vehicles: [Int]
    var props: [Int]
    var crowns: [Int]

    /// The indices, of each kind, whose rectangles cover pixel row `row`.
    init(row: Int, vehicles: [ScreenRect?], props: [ScreenRect?], crowns: [ScreenRect?]) {
        let v = Double(row) + 0.5
        func covering(_ rects: [ScreenRect?]) -> [Int] { rects.indices.filter { rects[$0]?.coversRow(v) ?? false } }
        self.vehicles = covering(vehicles)
        self.props = covering(props)
        self.crowns = covering(crowns)
    }
}

/// A scene's boxes prepared for ray casting through one camera: bounds and parts per vehicle, the
/// props, and the screen rectangles (grown by a pixel) that cull the boxes each pixel is tested
/// against.
struct SceneGeometry {
    let vehicleBounds: [SyntheticBox]
    let vehicleParts: [[SyntheticBox]]
    let props: [SyntheticBox]
    let vehicleRects: [ScreenRect?]
    let propRects: [ScreenRect?]
    let crowns: [FoliageCrown]
    let crownRects: [ScreenRect?]
    let shadows: [ShadowCaster]

    init(_ scene: SyntheticScene, labeller: SceneLabeller) {
        vehicleBounds = scene.vehicles.map(\.bounds)
        vehicleParts = scene.vehicles.map(\.parts)
        props = scene.props
        shadows = scene.vehicles.map { ShadowCaster($0, sun: scene.sunDirection) }
        vehicleRects = vehicleBounds.map { labeller.projectedRectangle($0.corners).map(ScreenRect.init) }
        propRects = props.map { labeller.projectedRectangle($0.corners).map(ScreenRect.init) }
        crowns = scene.crowns
        crownRects = crowns.map { labeller.projectedRectangle($0.corners).map(ScreenRect.init) }
    }

    /// The vehicles, props and crowns whose rectangles cover pixel row `row`.
    func candidates(row: Int) -> RowCandidates {
        RowCandidates(row: row, vehicles: vehicleRects, props: propRects, crowns: crownRects)
    }

    /// The nearest hit of the ray from `origin` along `d` through pixel column `column`: the ground
    /// plane (z = 0) first, then every part of the candidate vehicles, then the candidate props and
    /// crowns.
    func trace(from origin: SIMD3<Double>, direction d: SIMD3<Double>, column: Int, candidates: RowCandidates) -> RayHit {
        let u = Double(column) + 0.5
        var hit = RayHit()
        if d.z < -1e-9 { hit.t = -origin.z / d.z }
        for i in candidates.vehicles {
            guard let rect = vehicleRects[i], rect.coversColumn(u),
                vehicleBounds[i].intersect(origin: origin, direction: d, tMax: hit.t) != nil
            else { continue }
            for part in vehicleParts[i] {
                if let partHit = part.intersect(origin: origin, direction: d, tMax: hit.t) {
                    hit = RayHit(t: partHit.t, box: part, info: partHit, vehicle: Int32(i))
                }
            }
        }
        for i in candidates.props {
            guard let rect = propRects[i], rect.coversColumn(u) else { continue }
            if let propHit = props[i].intersect(origin: origin, direction: d, tMax: hit.t) {
                hit = RayHit(t: propHit.t, box: props[i], info: propHit, vehicle: -1)
            }
        }
        for i in candidates.crowns {
            guard let rect = crownRects[i], rect.coversColumn(u) else { continue }
            if let t = crowns[i].intersect(origin: origin, direction: d, tMax: hit.t) {
                hit = RayHit(t: t, vehicle: -1, crown: i)
            }
        }
        return hit
    }
}
