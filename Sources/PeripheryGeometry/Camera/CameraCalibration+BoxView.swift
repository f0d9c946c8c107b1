import Foundation
import PeripheryCore

extension CameraCalibration {
    /// Depth below which a box corner counts as behind the camera, metres.
    static let nearPlane = 0.05

    /// The 2-D bounding rectangle (min x, min y, max x, max y) of a box's projection into the
    /// source image, clipped to the part in front of the camera; `nil` when it is entirely behind.
    public func projectedRectangle(_ box: VehicleBox) -> SIMD4<Double>? {
        let c = cos(box.yaw), s = sin(box.yaw)
        let h: [SIMD3<Double>] = (0..<8).map { corner in
            let l = (corner & 1 == 0 ? 0.5 : -0.5) * box.length, w = (corner & 2 == 0 ? 0.5 : -0.5) * box.width
            let z = box.z + (corner & 4 == 0 ? 0.5 : -0.5) * box.height
            return sourceCamera * (SIMD3(box.x + c * l - s * w, box.y + s * l + c * w, z) - setup.pose.cameraCentre)
        }
        var points: [SIMD2<Double>] = []
        for a in h where a.z >= Self.nearPlane { points.append(SIMD2(a.x / a.z, a.y / a.z)) }
        // Edges of the box (corners differing in one index bit) that cross the near plane.
        for i in 0..<8 {
            for bit in [1, 2, 4] where i & bit == 0 {
                let a = h[i], b = h[i | bit]
                if (a.z < Self.nearPlane) != (b.z < Self.nearPlane) {
                    let p = a + (Self.nearPlane - a.z) / (b.z - a.z) * (b - a)
                    points.append(SIMD2(p.x / p.z, p.y / p.z))
                }
            }
        }
        guard let first = points.first else { return nil }
        return points.reduce(SIMD4(first.x, first.y, first.x, first.y)) { r, p in
            SIMD4(min(r.x, p.x), min(r.y, p.y), max(r.z, p.x), max(r.w, p.y))
        }
    }

    /// Fraction of a box's projected rectangle outside the detector's view, the focal-matched
    /// crop (1 when the box is entirely behind the camera).
    public func viewTruncation(_ box: VehicleBox) -> Double {
        guard let r = projectedRectangle(box) else { return 1 }
        let area = (r.z - r.x) * (r.w - r.y)
        guard area > 0 else { return 1 }
        return max(0, min(1, 1 - crop.overlap(r) / area))
    }
}

extension FocalMatchedCrop {
    /// Area of a rectangle (min x, min y, max x, max y; source pixels) inside the crop.
    public func overlap(_ r: SIMD4<Double>) -> Double {
        max(0, min(r.z, Double(x + width)) - max(r.x, Double(x))) * max(0, min(r.w, Double(y + height)) - max(r.y, Double(y)))
    }
}
