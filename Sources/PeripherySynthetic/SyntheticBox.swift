import Foundation
import PeripheryCore
import PeripheryGeometry

/// An oriented box standing in the vehicle frame (x forward, y left, z up, metres): the one solid
/// the synthetic world is built from.
public struct SyntheticBox: Sendable, Hashable {
    /// Centre of the box.
    public var centre: SIMD3<Double>
    /// Half extents along the box's heading, across it and up.
    public var halfExtents: SIMD3<Double>
    /// Heading, radians counter-clockwise from vehicle x.
    public private(set) var yaw: Double
    /// Base colour, linear RGB in 0…1.
    public var colour: SIMD3<Double>
    /// Heights (absolute z) at which the side faces are glass instead of `colour`, if any.
    public var glassBand: ClosedRange<Double>?
    /// Whether the surface is rubber-dark and unshaded by texture (wheels).
    public var isRubber: Bool
    /// What the surface is made of: the texture the structured world gives it.
    public var material: SurfaceMaterial
    let cosYaw: Double
    let sinYaw: Double

    /// Creates a box from its centre, full extents (length, width, height) and heading.
    public init(
        centre: SIMD3<Double>, size: SIMD3<Double>, yaw: Double, colour: SIMD3<Double>,
        glassBand: ClosedRange<Double>? = nil, isRubber: Bool = false, material: SurfaceMaterial = .plain
    ) {
        self.centre = centre
        halfExtents = size / 2
        self.yaw = yaw
        self.colour = colour
        self.glassBand = glassBand
        self.isRubber = isRubber
        self.material = material
        cosYaw = cos(yaw)
        sinYaw = sin(yaw)
    }

    /// The first intersection of a ray with the box before `tMax`, if any.
    ///
    /// Returns the ray parameter, the local face axis (0 length, 1 width, 2 height) and the sign of
    /// the outward face normal along it.
    @inline(__always)
    func intersect(origin: SIMD3<Double>, direction d: SIMD3<Double>, tMax: Double) -> BoxHit? {
        let p = origin - centre
        let c = cosYaw, s = sinYaw
        let lo = SIMD3(c * p.x + s * p.y, -s * p.x + c * p.y, p.z)
        let ld = SIMD3(c * d.x + s * d.y, -s * d.x + c * d.y, d.z)
        var tNear = -Double.infinity, tFar = tMax, axis = 0
        for a in 0..<3 {
            let h = halfExtents[a]
            if abs(ld[a]) < 1e-12 {
                if abs(lo[a]) > h { return nil }
                continue
            }
            let inv = 1 / ld[a]
            var t1 = (-h - lo[a]) * inv, t2 = (h - lo[a]) * inv
            if t1 > t2 { swap(&t1, &t2) }
            if t1 > tNear {
                tNear = t1
                axis = a
            }
            if t2 < tFar { tFar = t2 }
            if tNear > tFar { return nil }
        }
        guard tNear > 1e-6, tNear < tMax else { return nil }
        return BoxHit(t: tNear, axis: axis, sign: ld[axis] > 0 ? -1 : 1)
    }

    /// A vehicle-frame point in the box's own axes (along its heading, across it, up), from its
    /// centre.
    @inline(__always)
    func local(_ point: SIMD3<Double>) -> SIMD3<Double> {
        let p = point - centre
        return SIMD3(cosYaw * p.x + sinYaw * p.y, -sinYaw * p.x + cosYaw * p.y, p.z)
    }

    /// The outward normal in the vehicle frame of the face named by a hit.
    public func normal(of hit: BoxHit) -> SIMD3<Double> {
        var n = SIMD3<Double>(0, 0, 0)
        n[hit.axis] = hit.sign
        return SIMD3(cosYaw * n.x - sinYaw * n.y, sinYaw * n.x + cosYaw * n.y, n.z)
    }

    /// The eight corners in the vehicle frame.
    public var corners: [SIMD3<Double>] {
        var result: [SIMD3<Double>] = []
        for sx in [-1.0, 1.0] {
            for sy in [-1.0, 1.0] {
                for sz in [-1.0, 1.0] {
                    let l = halfExtents * SIMD3(sx, sy, sz)
                    result.append(centre + SIMD3(cosYaw * l.x - sinYaw * l.y, sinYaw * l.x + cosYaw * l.y, l.z))
                }
            }
        }
        return result
    }
}

/// Where a ray meets a box: its parameter and the face it enters through.
public struct BoxHit: Sendable, Hashable {
    /// Ray parameter (distance when the direction is a unit vector).
    public var t: Double
    /// Local face axis: 0 along the heading, 1 across, 2 up.
    public var axis: Int
    /// Sign of the outward normal along `axis`.
    public var sign: Double
}
