import PeripheryCore
import PeripheryGeometry

/// Overlap tests between convex footprints on the road plane.
enum Footprint {
    /// Whether two convex polygons (vertices in order) come closer than `margin` along any
    /// separating axis of their edges; `margin` 0 is the plain separating-axis overlap test.
    static func overlap(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>], margin: Double) -> Bool {
        for polygon in [a, b] {
            for i in polygon.indices {
                let edge = polygon[(i + 1) % polygon.count] - polygon[i]
                var axis = SIMD2(-edge.y, edge.x)
                let n = (axis * axis).sum().squareRoot()
                guard n > 0 else { continue }
                axis /= n
                let pa = a.map { ($0 * axis).sum() }, pb = b.map { ($0 * axis).sum() }
                guard let aMin = pa.min(), let aMax = pa.max(), let bMin = pb.min(), let bMax = pb.max() else { continue }
                if aMax + margin <= bMin || bMax + margin <= aMin { return false }
            }
        }
        return true
    }
}
