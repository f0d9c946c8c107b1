import Foundation

/// The structured world's surfaces: materials lit by an ambient share and by the sunlight that
/// reaches them, a worn and patched road, grass with dry patches, leaves, and a sky with clouds.
struct StructuredShader {
    let scene: SyntheticScene
    let appearance: SceneAppearance
    let seed: UInt64

    /// The outward normal of the surface a ray hit.
    func normal(_ hit: RayHit, geometry: SceneGeometry, at point: SIMD3<Double>) -> SIMD3<Double> {
        if let box = hit.box, let info = hit.info { return box.normal(of: info) }
        if let crown = hit.crown { return geometry.crowns[crown].normal(at: point) }
        return SIMD3(0, 0, 1)
    }

    /// The light leaving a surface point towards the camera.
    func surface(
        _ hit: RayHit, geometry: SceneGeometry, at point: SIMD3<Double>, normal n: SIMD3<Double>, view: SIMD3<Double>,
        sunlit: Double
    ) -> SIMD3<Double> {
        let facing = max(0, (n * scene.sunDirection).sum())
        let light = SIMD3<Double>(repeating: appearance.ambient * (0.8 + 0.2 * max(0, n.z))) + appearance.sunlight * (facing * sunlit)
        if let box = hit.box {
            var colour = material(box, at: point, normal: n, view: view) * light
            if hit.vehicle >= 0, !box.isRubber {
                // Clear coat and glass mirror the sky and the sun: what paint does and concrete does not.
                let reflected = mirrored(view, n)
                let glint = pow(max(0, (reflected * scene.sunDirection).sum()), 60) * sunlit
                colour += scene.skyHorizon * 0.07 * (1 - abs(n.z)) + appearance.sunlight * (1.2 * glint)
            }
            return colour
        }
        if let crown = hit.crown {
            let leaves = SurfaceNoise.solid(seed &+ 31, point * 3.1)
            return geometry.crowns[crown].colour * (0.45 + 0.9 * leaves) * light
        }
        var colour = ground(point)
        // Under a car the road sees almost no sky: the contact shadow, twice.
        for caster in geometry.shadows {
            let occlusion = caster.attenuation(at: SIMD2(point.x, point.y))
            colour *= occlusion * occlusion
        }
        return colour * light
    }

    /// The unit direction a ray along `view` leaves a mirror with normal `n` in.
    private func mirrored(_ view: SIMD3<Double>, _ n: SIMD3<Double>) -> SIMD3<Double> {
        let unit = view / (view * view).sum().squareRoot()
        return unit - 2 * (unit * n).sum() * n
    }

    /// A box's surface colour before lighting, by its material.
    private func material(_ box: SyntheticBox, at point: SIMD3<Double>, normal n: SIMD3<Double>, view: SIMD3<Double>) -> SIMD3<Double> {
        if let band = box.glassBand, abs(n.z) < 0.5, band.contains(point.z) {
            return SIMD3(0.06, 0.07, 0.09) + 0.3 * scene.skyHorizon
        }
        let local = box.local(point)
        switch box.material {
        case .plain:
            guard !box.isRubber else { return box.colour }
            return box.colour * (0.94 + 0.12 * SurfaceNoise.solid(seed, point * 4))
        case .concrete:
            let along = local.x + box.halfExtents.x
            let joint = along - 4 * (along / 4).rounded(.down) < 0.03 ? 0.7 : 1.0
            let stain = 0.8 + 0.2 * min(1, (point.z + 0.05) / 0.5)
            return box.colour * (0.8 + 0.35 * SurfaceNoise.solid(seed &+ 3, point * 1.7)) * joint * stain
        case .brick:
            let course = ((point.z + 10) / 0.075).rounded(.down)
            let along = abs(n.x) > abs(n.y) ? local.y : local.x
            let shifted = along / 0.225 + (Int(course) % 2 == 0 ? 0 : 0.5)
            let mortar = (point.z + 10) / 0.075 - course < 0.13 || shifted - shifted.rounded(.down) < 0.05
            if mortar { return SIMD3(repeating: 0.62) }
            let tone = SyntheticRandom.unit(SyntheticRandom.hash(seed &+ 5, Int(course), Int(shifted.rounded(.down))))
            return box.colour * (0.8 + 0.35 * tone)
        case .metal:
            let sheen = SurfaceNoise.value(seed &+ 7, local.x * 0.4, local.z * 2)
            return box.colour * (0.75 + 0.4 * sheen) + scene.skyHorizon * (0.25 * max(0, mirrored(view, n).z + 0.2))
        case .foliage:
            return box.colour * (0.4 + 1.0 * SurfaceNoise.solid(seed &+ 9, point * 3.3))
        case .sign:
            let u = abs(local.y) / max(box.halfExtents.y, 1e-6), v = abs(local.z) / max(box.halfExtents.z, 1e-6)
            if abs(n.z) > 0.5 || max(u, v) > 0.88 { return max(u, v) > 0.94 ? box.colour : SIMD3(repeating: 0.85) }
            let cell = SyntheticRandom.hash(seed &+ 11, Int(((local.y + 5) / 0.12).rounded(.down)), Int(((local.z + 5) / 0.25).rounded(.down)))
            let stroke = v < 0.6 && SyntheticRandom.unit(cell) < 0.45
            return stroke ? SIMD3(repeating: 0.9) : box.colour
        case .cloth:
            return box.colour * (0.75 + 0.5 * SurfaceNoise.solid(seed &+ 13, point * 5))
        case .vehicleBody:
            let half = box.halfExtents
            guard abs(local.x) > half.x - 0.01 else { return box.colour }
            let u = abs(local.y) / half.y, v = (local.z + half.z) / (2 * half.z)
            if u > 0.62, u < 0.95, v > 0.55, v < 0.9 {
                return local.x < 0 ? SIMD3(0.55, 0.04, 0.03) : SIMD3(0.85, 0.83, 0.75)
            }
            if u < 0.22, v > 0.2, v < 0.45 { return SIMD3(0.85, 0.85, 0.8) }
            return box.colour
        }
    }

    /// The road plane's colour at a vehicle-frame point: asphalt or concrete with wear, worn
    /// paint, or grass.
    private func ground(_ vehicleFrame: SIMD3<Double>) -> SIMD3<Double> {
        var p = vehicleFrame
        let road: SIMD2<Double>
        if let placement = scene.placement {
            p = placement.world(p)
            road = placement.centreline.roadCoordinates(of: SIMD2(p.x, p.y), window: placement.window)
        } else {
            road = SIMD2(p.x, p.y)
        }
        let x = road.x, y = road.y
        let grain = SurfaceNoise.value(seed &+ 21, p.x * 22, p.y * 22) - 0.5
        switch scene.road.surface(x: x, y: y) {
        case .verge:
            let dry = SurfaceNoise.fractal(seed &+ 22, p.x * 0.3, p.y * 0.3, octaves: 3)
            let tuft = SurfaceNoise.value(seed &+ 23, p.x * 6, p.y * 6)
            let dryGrass = SIMD3<Double>(0.52, 0.46, 0.3)
            let mix = max(0, min(1, (dry - 0.45) * 3))
            return (scene.verge * (1 - mix) + dryGrass * mix) * (0.7 + 0.5 * tuft + 0.3 * grain)
        case .marking:
            let wear = SurfaceNoise.fractal(seed &+ 24, x * 1.5, y * 9, octaves: 2)
            if wear < appearance.markingWear { return asphalt(x: x, y: y, p: p, grain: grain) }
            return scene.paint * (0.9 + 0.15 * grain)
        case .asphalt:
            return asphalt(x: x, y: y, p: p, grain: grain)
        }
    }

    /// The road surface between the lines: grain, mottling, wheel paths, patches, cracks and slab
    /// joints.
    private func asphalt(x: Double, y: Double, p: SIMD3<Double>, grain: Double) -> SIMD3<Double> {
        let mottle = SurfaceNoise.fractal(seed &+ 25, p.x * 0.3, p.y * 0.6, octaves: 3) - 0.5
        var tone = 1 + 0.3 * grain + 2 * appearance.roadMottle * mottle
        let road = scene.road
        if appearance.wheelPaths > 0 {
            let inLane = (y - road.rightEdge) - road.laneWidth * ((y - road.rightEdge) / road.laneWidth).rounded(.down) - road.laneWidth / 2
            let path = min(abs(inLane - 0.85), abs(inLane + 0.85))
            tone *= 1 - 0.2 * appearance.wheelPaths * exp(-path * path / 0.18)
        }
        if appearance.patchDensity > 0 {
            let cx = Int((x / 7).rounded(.down)), cy = Int(((y - road.rightEdge) / road.laneWidth).rounded(.down))
            let h = SyntheticRandom.hash(seed &+ 26, cx, cy)
            if SyntheticRandom.unit(h) < appearance.patchDensity {
                let u = x / 7 - Double(cx), v = (y - road.rightEdge) / road.laneWidth - Double(cy)
                let a = Double((h >> 8) & 0xFF) / 255, b = Double((h >> 16) & 0xFF) / 255
                if u > 0.1 + 0.3 * a, u < 0.55 + 0.4 * a, v > 0.1 + 0.3 * b, v < 0.6 + 0.35 * b {
                    tone *= 0.7 + 0.55 * Double((h >> 24) & 0xFF) / 255
                }
            }
        }
        if appearance.crackDensity > 0 {
            let line = abs(SurfaceNoise.fractal(seed &+ 27, p.x * 0.22, p.y * 0.45, octaves: 3) - 0.5)
            let present = SurfaceNoise.value(seed &+ 28, p.x * 0.08, p.y * 0.08) < appearance.crackDensity
            if present, line < 0.006 { tone *= 0.45 }
        }
        if appearance.concreteSlabs, x - appearance.slabLength * (x / appearance.slabLength).rounded(.down) < 0.025 {
            tone *= 0.6
        }
        return scene.asphalt * max(0.2, tone)
    }

    /// The sky: a gradient from the horizon to the zenith, clouds, and the sun's disc and glow.
    func sky(_ d: SIMD3<Double>) -> SIMD3<Double> {
        let unit = d / (d * d).sum().squareRoot()
        let e = min(1, max(0, unit.z * 3))
        var colour = scene.skyHorizon * (1 - e) + scene.skyTop * e
        if appearance.cloudCover > 0, unit.z > 0.005 {
            let u = unit.x / unit.z * 0.5, v = unit.y / unit.z * 0.5
            let c = SurfaceNoise.fractal(seed &+ 29, u, v, octaves: 4)
            let cover = max(0, min(1, (c - (1 - appearance.cloudCover)) * 5)) * min(1, unit.z * 10)
            let cloud = SIMD3<Double>(repeating: 0.6 + 0.35 * (1 - appearance.cloudCover)) * (0.85 + 0.3 * c)
            colour = colour * (1 - cover) + cloud * cover
        }
        let glow = max(0, (unit * scene.sunDirection).sum())
        colour += appearance.sunlight * (0.5 * pow(glow, 48))
        if glow > 0.9996 { colour += appearance.sunlight * 4 }
        return colour
    }
}
