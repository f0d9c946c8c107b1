import Foundation
import PeripheryCore
import PeripheryGeometry

extension WorldPainter {
    /// A track's recent path on the road (z 0.08), ending at its current centre: its state colour at
    /// 65 % opacity, 1.5 px.
    mutating func trail(_ vehicle: TrackedVehicle) {
        var points = vehicle.trail.map { SIMD3($0.y, $0.z, 0.08) }
        let current = SIMD3(vehicle.box.x, vehicle.box.y, 0.08)
        if points.last != current { points.append(current) }
        guard points.count > 1 else { return }
        stroke(points, Palette.colour(for: vehicle.state).opacity(0.65), .solid(1.5))
    }

    /// A layered body (visualization §10.2): walls from z 0.04 to `bodyZ·h`, the body cap, cabin
    /// walls up to `roofZ·h`, the cabin cap, windows 1.2 cm above the roof and the windscreen seam.
    ///
    /// - Parameters:
    ///   - fill: the body's fill; `stroke` its outline colour, dashed [5, 4] when `dashed`.
    mutating func body(
        _ profile: VehicleProfile, x: Double, y: Double, yaw: Double, length: Double, width: Double, height: Double,
        fill: Colour, stroke outline: Colour, dashed: Bool
    ) {
        let h = profile.height(for: height)
        let c = cos(yaw), s = sin(yaw)
        func place(_ p: SIMD2<Double>) -> SIMD2<Double> {
            let f = p.x * length, l = p.y * width
            return SIMD2(x + f * c - l * s, y + f * s + l * c)
        }
        func dashing(_ width: Double) -> StrokeStyle {
            dashed ? .dashed(width, [5, 4]) : .solid(width)
        }
        let body = profile.body.map(place)
        let cabin = profile.cabin.map(place)
        let bodyTop = profile.bodyZ * h, roof = profile.roofZ * h

        walls(
            body, from: 0.04, to: bodyTop, fill: fill.opacity(0.72), stroke: outline.opacity(0.72),
            style: dashing(1.05))
        cap(body, at: bodyTop, fill: fill.opacity(0.96), stroke: outline.opacity(0.96), style: dashing(1.55))
        walls(cabin, from: bodyTop, to: roof, fill: Palette.cabin, stroke: outline.opacity(0.72), style: dashing(1.05))
        cap(cabin, at: roof, fill: Palette.cabinTop, stroke: outline, style: dashing(1.3))
        for pane in profile.glass {
            cap(
                pane.map(place), at: roof + 0.012, fill: Palette.glass, stroke: Palette.glass.opacity(2),
                style: .solid(1))
        }
        if profile.hasSeam {
            let a = place(SIMD2(0.12, -0.30)), b = place(SIMD2(0.12, 0.30))
            stroke([SIMD3(a.x, a.y, roof + 0.018), SIMD3(b.x, b.y, roof + 0.018)], outline.opacity(0.6), .solid(0.9))
        }
    }

    /// Vertical faces between two heights along an outline, far faces first, then the bottom ring
    /// and the vertical edges stroked once.
    private mutating func walls(
        _ outline: [SIMD2<Double>], from z0: Double, to z1: Double, fill: Colour, stroke colour: Colour,
        style: StrokeStyle
    ) {
        guard outline.count >= 3, z1 > z0 else { return }
        var faces: [(depth: Double, quad: [SIMD3<Double>])] = []
        for (i, a) in outline.enumerated() {
            let b = outline[(i + 1) % outline.count]
            let quad = [SIMD3(a.x, a.y, z0), SIMD3(b.x, b.y, z0), SIMD3(b.x, b.y, z1), SIMD3(a.x, a.y, z1)]
            let middle = (quad[0] + quad[2]) / 2
            faces.append((camera.depth(middle), quad))
        }
        for face in faces.sorted(by: { $0.depth > $1.depth }) { self.fill(face.quad, fill) }
        let bottom = outline.map { SIMD3($0.x, $0.y, z0) }
        let verticals = outline.map { [SIMD3($0.x, $0.y, z0), SIMD3($0.x, $0.y, z1)] }
        stroke(paths: [bottom + [bottom[0]]] + verticals, colour, style)
    }

    /// A horizontal polygon at height `z`, filled and outlined.
    private mutating func cap(
        _ outline: [SIMD2<Double>], at z: Double, fill: Colour, stroke colour: Colour, style: StrokeStyle
    ) {
        let ring = outline.map { SIMD3($0.x, $0.y, z) }
        self.fill(ring, fill)
        stroke(ring, closed: true, colour, style)
    }
}
