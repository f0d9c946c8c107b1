import Foundation
import PeripheryCore
import PeripheryGeometry

extension WorldCamera {
    /// Shortest and longest camera distance the framing solver tries, metres.
    static let framingDistances = 12.0...520.0
    /// Aim points the framing solver tries, metres.
    static let framingAims = Array(stride(from: 6.0, through: 24.0, by: 0.5))
    /// Aim and distance used when no aim frames the patch.
    static let fallbackAim = 21.0
    /// See `fallbackAim`.
    static let fallbackDistance = 120.0

    /// The points the framing keeps on screen: (−2.6, ±1.1, 0), and 9 points across the sensor's
    /// horizontal field of view on an arc of radius 42 m, each at z 0 and z 2.6.
    static func framingPatch(horizontalFieldOfView hfov: Double) -> [SIMD3<Double>] {
        var points = [SIMD3(-2.6, 1.1, 0), SIMD3(-2.6, -1.1, 0)]
        for i in 0..<9 {
            let a = -hfov / 2 + hfov * Double(i) / 8
            for z in [0.0, 2.6] { points.append(SIMD3(42 * cos(a), 42 * sin(a), z)) }
        }
        return points
    }

    /// The view rectangle the patch must stay inside: margin `min(10, 0.04 · min(W, H))` on three
    /// sides and that plus 22 px at the top.
    static func framingBounds(width: Int, height: Int) -> (lo: SIMD2<Double>, hi: SIMD2<Double>) {
        let margin = min(10, 0.04 * Double(min(width, height)))
        return (SIMD2(margin, margin + 22), SIMD2(Double(width) - margin, Double(height) - margin))
    }

    /// The reference's framing solver (visualization §10.2).
    ///
    /// For each aim from 6 to 24 m in 0.5 m steps it finds the nearest distance in 12…520 m that
    /// keeps the patch inside the bounds (12 if that fits; none if 520 does not; else bisection, at
    /// most 26 steps, until the bracket is ≤ 0.02 m), then takes the farthest aim whose distance is
    /// within 1 % of the smallest. Falls back to aim 21 m, distance 120 m.
    static func framed(
        width: Int, height: Int, tilt: Double, horizontalFieldOfView hfov: Double
    ) -> WorldCamera {
        let patch = framingPatch(horizontalFieldOfView: hfov)
        let bounds = framingBounds(width: width, height: height)
        func fits(_ aim: Double, _ distance: Double) -> Bool {
            let camera = WorldCamera(width: width, height: height, tilt: tilt, aim: aim, distance: distance)
            return patch.allSatisfy { point in
                guard let p = camera.project(point) else { return false }
                return p.x >= bounds.lo.x && p.x <= bounds.hi.x && p.y >= bounds.lo.y && p.y <= bounds.hi.y
            }
        }
        var solutions: [(aim: Double, distance: Double)] = []
        for aim in framingAims {
            var lo = framingDistances.lowerBound, hi = framingDistances.upperBound
            if fits(aim, lo) {
                solutions.append((aim, lo))
                continue
            }
            guard fits(aim, hi) else { continue }
            for _ in 0..<26 where hi - lo > 0.02 {
                let mid = (lo + hi) / 2
                if fits(aim, mid) { hi = mid } else { lo = mid }
            }
            solutions.append((aim, hi))
        }
        guard let nearest = solutions.map(\.distance).min(),
            let best = solutions.last(where: { $0.distance <= 1.01 * nearest })
        else {
            return WorldCamera(width: width, height: height, tilt: tilt, aim: fallbackAim, distance: fallbackDistance)
        }
        return WorldCamera(width: width, height: height, tilt: tilt, aim: best.aim, distance: best.distance)
    }
}
