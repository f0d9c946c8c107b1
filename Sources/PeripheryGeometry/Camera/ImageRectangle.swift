/// Axis-aligned rectangles in source-image pixels, as `(min x, min y, max x, max y)`: the 2-D
/// extent of a projected box, a crop, a dataset's 2-D label.
public enum ImageRectangle {
    /// Depth below which a box corner counts as behind the camera, metres.
    public static let nearPlane = 0.05

    /// The bounding rectangle of a box's projection from its 8 corners in homogeneous pixels
    /// (`K · S · R · (p − c)`, corners `i` and `i | bit` sharing an edge for bit 1, 2, 4), clipped to
    /// the part in front of the camera; `nil` when the box is entirely behind it.
    public static func bounding(homogeneousCorners h: [SIMD3<Double>]) -> SIMD4<Double>? {
        var points: [SIMD2<Double>] = []
        for a in h where a.z >= nearPlane { points.append(SIMD2(a.x / a.z, a.y / a.z)) }
        // Edges that cross the near plane end there.
        for i in 0..<8 {
            for bit in [1, 2, 4] where i & bit == 0 {
                let a = h[i], b = h[i | bit]
                if (a.z < nearPlane) != (b.z < nearPlane) {
                    let s = (nearPlane - a.z) / (b.z - a.z)
                    let p = a + s * (b - a)
                    points.append(SIMD2(p.x / p.z, p.y / p.z))
                }
            }
        }
        guard let first = points.first else { return nil }
        var r = SIMD4(first.x, first.y, first.x, first.y)
        for p in points {
            r = SIMD4(min(r.x, p.x), min(r.y, p.y), max(r.z, p.x), max(r.w, p.y))
        }
        return r
    }

    /// Area of the intersection of two rectangles.
    public static func intersectionArea(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Double {
        max(0, min(a.z, b.z) - max(a.x, b.x)) * max(0, min(a.w, b.w) - max(a.y, b.y))
    }

    /// Fraction of `rect` outside `frame` (1 when there is no rectangle or it is empty).
    public static func fractionOutside(_ rect: SIMD4<Double>?, _ frame: SIMD4<Double>) -> Double {
        guard let r = rect else { return 1 }
        let area = (r.z - r.x) * (r.w - r.y)
        guard area > 0 else { return 1 }
        return max(0, min(1, 1 - intersectionArea(r, frame) / area))
    }
}
