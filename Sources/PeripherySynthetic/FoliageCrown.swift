import Foundation

/// A tree's crown or a bush: an ellipsoid of leaves that hides what is behind it and lets a
/// dappled share of the sunlight through to the ground.
public struct FoliageCrown: Sendable, Hashable {
    /// Centre, vehicle frame, metres.
    public var centre: SIMD3<Double>
    /// Semi-axes along x, y and z, metres.
    public var radii: SIMD3<Double>
    /// Leaf colour, linear RGB in 0…1.
    public var colour: SIMD3<Double>

    /// Creates a crown.
    public init(centre: SIMD3<Double>, radii: SIMD3<Double>, colour: SIMD3<Double>) {
        self.centre = centre
        self.radii = radii
        self.colour = colour
    }

    /// The first ray parameter in `(0, tMax)` at which the ray enters the ellipsoid (or leaves it,
    /// for a ray that starts inside), if any.
    @inline(__always)
    func intersect(origin: SIMD3<Double>, direction: SIMD3<Double>, tMax: Double) -> Double? {
        let o = (origin - centre) / radii, d = direction / radii
        let a = (d * d).sum(), b = (o * d).sum(), c = (o * o).sum() - 1
        let discriminant = b * b - a * c
        guard discriminant >= 0, a > 0 else { return nil }
        let root = discriminant.squareRoot()
        var t = (-b - root) / a
        if t <= 1e-6 { t = (-b + root) / a }
        guard t > 1e-6, t < tMax else { return nil }
        return t
    }

    /// The outward unit normal at a point on the surface.
    func normal(at point: SIMD3<Double>) -> SIMD3<Double> {
        let n = (point - centre) / (radii * radii)
        let length = (n * n).sum().squareRoot()
        return length > 0 ? n / length : SIMD3(0, 0, 1)
    }

    /// The eight corners of the crown's axis-aligned bounding box.
    var corners: [SIMD3<Double>] {
        var result: [SIMD3<Double>] = []
        for sx in [-1.0, 1.0] {
            for sy in [-1.0, 1.0] {
                for sz in [-1.0, 1.0] { result.append(centre + radii * SIMD3(sx, sy, sz)) }
            }
        }
        return result
    }
}
