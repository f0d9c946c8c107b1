import Foundation

/// The roadside of one structured-world scene, drawn side by side: an edge (a concrete barrier, a
/// guard rail, a kerb and sidewalk, a wall, a bridge's parapet or an open verge), then what stands
/// beyond it (lamps, signs, trees and bushes, buildings, pedestrians, clutter and random solids),
/// and sometimes a sign gantry over the road.
struct RoadsideDraw {
    let road: SyntheticRoad
    var props: [SyntheticBox] = []
    var crowns: [FoliageCrown] = []

    /// Forward extent of the roadside, metres.
    static let start = -10.0, end = 160.0

    /// The kinds of road edge.
    enum Edge: CaseIterable { case barrier, guardRail, sidewalk, verge, wall, parapet }

    init(road: SyntheticRoad) { self.road = road }

    mutating func draw(_ rng: inout SyntheticRandom) {
        let bridge = rng.chance(0.08)
        for side in [-1.0, 1.0] {
            let kerb = side < 0 ? road.rightKerb : road.leftKerb
            let edge: Edge
            if bridge {
                edge = .parapet
            } else {
                let draw = rng.uniform(0, 1)
                edge = draw < 0.22 ? .barrier : draw < 0.44 ? .guardRail : draw < 0.69 ? .sidewalk : draw < 0.89 ? .verge : .wall
            }
            let outer = drawEdge(edge, side: side, kerb: kerb, &rng)
            drawVerticals(side: side, kerb: kerb, outer: outer, urban: edge == .sidewalk || edge == .wall, &rng)
            if !bridge { drawVegetation(side: side, outer: outer, &rng) }
            if !bridge, rng.chance(edge == .sidewalk ? 0.85 : 0.35) { drawBuildings(side: side, outer: outer, &rng) }
            drawClutter(side: side, kerb: kerb, outer: outer, pedestrians: edge == .sidewalk ? rng.integer(0...5) : rng.integer(0...1), &rng)
        }
        if rng.chance(0.15) { drawGantry(&rng) }
        if rng.chance(0.1) {
            let x = rng.uniform(8, 40)
            props += RoadFurniture.pedestrian(
                x: x, y: rng.uniform(road.rightKerb, road.leftKerb), yaw: rng.chance(0.5) ? .pi / 2 : -.pi / 2, height: rng.uniform(1.5, 1.9),
                shirt: randomColour(&rng), trousers: randomColour(&rng) * 0.6, skin: skin(&rng))
        }
    }

    /// The edge of one side; returns the lateral position where the roadside beyond it starts.
    mutating func drawEdge(_ edge: Edge, side: Double, kerb: Double, _ rng: inout SyntheticRandom) -> Double {
        let concrete = SIMD3(repeating: rng.uniform(0.5, 0.85)) * SIMD3(1, rng.uniform(0.96, 1), rng.uniform(0.9, 1))
        if edge != .barrier, edge != .parapet, edge != .guardRail || rng.chance(0.4) {
            props += RoadFurniture.sidewalk(
                from: RoadsideDraw.start, to: RoadsideDraw.end, inner: kerb, side: side, width: 0.25, height: road.kerbHeight,
                colour: concrete)
        }
        switch edge {
        case .barrier:
            props += RoadFurniture.concreteBarrier(
                from: RoadsideDraw.start, to: RoadsideDraw.end, face: kerb, side: side, height: rng.uniform(0.8, 1.07), colour: concrete)
            return kerb + side * 0.7
        case .guardRail:
            let face = kerb + side * rng.uniform(0.2, 0.9)
            let steel = SIMD3(repeating: rng.uniform(0.45, 0.8))
            props += RoadFurniture.guardRail(
                from: RoadsideDraw.start, to: RoadsideDraw.end, face: face, side: side, postSpacing: rng.uniform(1.9, 4),
                colour: steel, postColour: rng.chance(0.7) ? steel * 0.85 : SIMD3(0.3, 0.22, 0.14))
            return face + side * 0.4
        case .sidewalk:
            let width = rng.uniform(1.5, 4.5)
            props += RoadFurniture.sidewalk(
                from: RoadsideDraw.start, to: RoadsideDraw.end, inner: kerb + side * 0.25, side: side, width: width - 0.25,
                height: road.kerbHeight, colour: concrete * rng.uniform(0.9, 1.1))
            return kerb + side * width
        case .verge:
            return kerb + side * 0.25
        case .wall:
            let face = kerb + side * rng.uniform(0.5, 3)
            props += RoadFurniture.wall(
                from: RoadsideDraw.start, to: RoadsideDraw.end, face: face, side: side, height: rng.uniform(1.2, 4),
                material: rng.chance(0.5) ? .brick : .concrete,
                colour: rng.chance(0.5) ? SIMD3(rng.uniform(0.45, 0.65), rng.uniform(0.22, 0.32), rng.uniform(0.15, 0.22)) : concrete)
            return face + side * 0.3
        case .parapet:
            props += RoadFurniture.parapet(from: RoadsideDraw.start, to: RoadsideDraw.end, face: kerb, side: side, colour: concrete)
            return kerb + side * 0.4
        }
    }

    /// Street lamps, signs and bare poles just beyond the edge.
    mutating func drawVerticals(side: Double, kerb: Double, outer: Double, urban: Bool, _ rng: inout SyntheticRandom) {
        if rng.chance(urban ? 0.8 : 0.45) {
            var x = rng.uniform(0, 30)
            let colour = SIMD3(repeating: rng.uniform(0.35, 0.7))
            let height = rng.uniform(7, 11), arm = rng.uniform(0.5, 3)
            while x < RoadsideDraw.end {
                props += RoadFurniture.streetLamp(x: x, y: outer + side * 0.4, side: side, height: height, arm: arm, colour: colour)
                x += rng.uniform(25, 45)
            }
        }
        for _ in 0..<rng.integer(0...3) {
            let width = rng.uniform(0.5, 2.5), height = rng.uniform(0.5, 1.8)
            props += RoadFurniture.sign(
                x: rng.uniform(5, 120), y: outer + side * (0.5 + width / 2), bottom: rng.uniform(1.2, 2.6), width: width, height: height,
                colour: signColour(&rng), posts: width > 1.4 ? 2 : 1)
        }
        if rng.chance(0.4) {
            var x = rng.uniform(3, 30)
            let colour = rng.chance(0.5) ? SIMD3(0.35, 0.27, 0.2) : SIMD3(repeating: rng.uniform(0.4, 0.7))
            while x < RoadsideDraw.end {
                let h = rng.uniform(6, 10)
                props.append(
                    SyntheticBox(centre: SIMD3(x, outer + side * 1.2, h / 2), size: SIMD3(0.25, 0.25, h), yaw: 0, colour: colour, material: .metal))
                x += rng.uniform(30, 55)
            }
        }
    }

    /// Trees (a trunk and a crown), bushes and hedges beyond the edge: their shadows fall across the
    /// road when the sun is low.
    mutating func drawVegetation(side: Double, outer: Double, _ rng: inout SyntheticRandom) {
        let density = rng.uniform(0, 1)
        guard density > 0.15 else { return }
        var x = rng.uniform(-8, 15)
        while x < RoadsideDraw.end {
            let y = outer + side * rng.uniform(1, 8)
            let leaves = SIMD3(rng.uniform(0.1, 0.3), rng.uniform(0.2, 0.42), rng.uniform(0.06, 0.18))
            if rng.chance(0.7) {
                let trunk = rng.uniform(1.5, 4), radius = rng.uniform(1.5, 4.5)
                props.append(
                    SyntheticBox(
                        centre: SIMD3(x, y, trunk / 2 + 0.5), size: SIMD3(0.3, 0.3, trunk + 1), yaw: rng.uniform(0, 1),
                        colour: SIMD3(rng.uniform(0.2, 0.35), rng.uniform(0.16, 0.25), rng.uniform(0.1, 0.16)), material: .cloth))
                crowns.append(
                    FoliageCrown(
                        centre: SIMD3(x, y, trunk + radius * 0.9),
                        radii: SIMD3(radius * rng.uniform(0.8, 1.2), radius * rng.uniform(0.8, 1.2), radius * rng.uniform(0.8, 1.4)),
                        colour: leaves))
            } else {
                let radius = rng.uniform(0.5, 1.6)
                crowns.append(
                    FoliageCrown(
                        centre: SIMD3(x, y, radius * 0.6), radii: SIMD3(radius * rng.uniform(1, 2.5), radius, radius * 0.8), colour: leaves))
            }
            x += rng.uniform(4, 30) / density
        }
        if rng.chance(0.15) {
            let height = rng.uniform(1, 2.5)
            props += RoadFurniture.wall(
                from: RoadsideDraw.start, to: RoadsideDraw.end, face: outer + side * 0.5, side: side, height: height, material: .foliage,
                colour: SIMD3(rng.uniform(0.12, 0.25), rng.uniform(0.25, 0.4), rng.uniform(0.08, 0.16))
            ).map {
                var hedge = $0
                hedge.halfExtents.y = 0.5
                return hedge
            }
        }
    }

    /// Buildings set back from the edge, with windows and textured walls.
    mutating func drawBuildings(side: Double, outer: Double, _ rng: inout SyntheticRandom) {
        var x = rng.uniform(-5, 25)
        let setback = rng.uniform(1, 12)
        while x < RoadsideDraw.end + 20 {
            let length = rng.uniform(6, 25), depth = rng.uniform(6, 14), h = rng.uniform(3.5, 25)
            let tone = rng.uniform(0.3, 0.85)
            let material: SurfaceMaterial = rng.chance(0.35) ? .brick : (rng.chance(0.5) ? .concrete : .plain)
            props.append(
                SyntheticBox(
                    centre: SIMD3(x + length / 2, outer + side * (setback + depth / 2), h / 2), size: SIMD3(length, depth, h), yaw: 0,
                    colour: material == .brick
                        ? SIMD3(rng.uniform(0.45, 0.65), rng.uniform(0.22, 0.35), rng.uniform(0.15, 0.25))
                        : SIMD3(tone, tone * rng.uniform(0.85, 1), tone * rng.uniform(0.75, 1)),
                    glassBand: rng.chance(0.6) ? (h * rng.uniform(0.15, 0.3))...(h * rng.uniform(0.4, 0.8)) : nil, material: material))
            x += length + rng.uniform(0.5, 15)
        }
    }

    /// Pedestrians, cones, bins and bollards near the edge, and random solids of random colours
    /// beyond it.
    mutating func drawClutter(side: Double, kerb: Double, outer: Double, pedestrians: Int, _ rng: inout SyntheticRandom) {
        for _ in 0..<pedestrians {
            props += RoadFurniture.pedestrian(
                x: rng.uniform(3, 60), y: (kerb + outer) / 2 + side * rng.uniform(-0.3, 0.8), yaw: rng.uniform(-.pi, .pi),
                height: rng.uniform(1.5, 1.9), shirt: randomColour(&rng), trousers: randomColour(&rng) * 0.6, skin: skin(&rng))
        }
        if rng.chance(0.2) {
            var x = rng.uniform(5, 20)
            let y = kerb - side * rng.uniform(0.3, 1.5)
            for _ in 0..<rng.integer(3...10) {
                props.append(SyntheticBox(centre: SIMD3(x, y, 0.35), size: SIMD3(0.3, 0.3, 0.7), yaw: 0, colour: SIMD3(0.95, 0.4, 0.08)))
                x += rng.uniform(2, 6)
            }
        }
        for _ in 0..<rng.integer(0...4) {
            let h = rng.uniform(0.6, 1.3)
            props.append(
                SyntheticBox(
                    centre: SIMD3(rng.uniform(3, 80), outer + side * rng.uniform(0.3, 2), h / 2), size: SIMD3(rng.uniform(0.3, 0.8), rng.uniform(0.3, 0.8), h),
                    yaw: rng.uniform(0, 1.5), colour: randomColour(&rng), material: rng.chance(0.5) ? .metal : .plain))
        }
        for _ in 0..<rng.integer(0...5) {
            let size = SIMD3(rng.uniform(0.4, 5), rng.uniform(0.4, 2.5), rng.uniform(0.4, 2.5))
            let materials: [SurfaceMaterial] = [.plain, .concrete, .brick, .metal, .foliage, .cloth]
            props.append(
                SyntheticBox(
                    centre: SIMD3(rng.uniform(0, 90), outer + side * (rng.uniform(1, 10) + size.y / 2), size.z / 2), size: size,
                    yaw: rng.uniform(-0.3, 0.3), colour: randomColour(&rng), material: materials[rng.integer(0...(materials.count - 1))]))
        }
    }

    /// A sign gantry across the whole road.
    mutating func drawGantry(_ rng: inout SyntheticRandom) {
        let right = road.rightKerb - 1.5, left = road.leftKerb + 1.5
        var signs: [(y: Double, width: Double, height: Double)] = []
        for _ in 0..<rng.integer(1...3) {
            let width = rng.uniform(2, 4.5)
            signs.append((rng.uniform(right + width / 2 + 0.5, left - width / 2 - 0.5), width, rng.uniform(1.5, 2.8)))
        }
        props += RoadFurniture.gantry(
            x: rng.uniform(20, 110), right: right, left: left, clearance: rng.uniform(5.3, 6.5), signs: signs,
            colour: SIMD3(repeating: rng.uniform(0.45, 0.75)), signColour: rng.chance(0.8) ? SIMD3(0.05, 0.35, 0.15) : SIMD3(0.08, 0.18, 0.5))
    }

    func randomColour(_ rng: inout SyntheticRandom) -> SIMD3<Double> {
        SIMD3(rng.uniform(0.05, 0.9), rng.uniform(0.05, 0.9), rng.uniform(0.05, 0.9))
    }

    func skin(_ rng: inout SyntheticRandom) -> SIMD3<Double> {
        let t = rng.uniform(0.25, 0.85)
        return SIMD3(t, t * 0.78, t * 0.62)
    }

    func signColour(_ rng: inout SyntheticRandom) -> SIMD3<Double> {
        let palette: [SIMD3<Double>] = [
            SIMD3(0.05, 0.35, 0.15), SIMD3(0.08, 0.18, 0.5), SIMD3(0.85, 0.85, 0.82), SIMD3(0.7, 0.08, 0.06), SIMD3(0.9, 0.7, 0.05),
        ]
        return palette[rng.integer(0...(palette.count - 1))]
    }
}
