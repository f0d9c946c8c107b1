import PeripheryCore
import PeripheryGeometry

/// Labels the vehicles of a rendered frame: visible and unoccluded pixel counts, occlusion and
/// truncation.
struct SceneLabeller: Sendable {
    let camera: RayCamera
    let minimumVisiblePixels: Int

    /// Vehicles whose projection lies more than this fraction outside the detector's view are not
    /// in view: KITTI's rule, whose evaluation ignores objects truncated by more than 50 %.
    static let maximumViewTruncation = 0.5

    /// The detector's view: the frame's focal-matched crop.
    var view: FocalMatchedCrop { FocalMatchedCrop(intrinsics: camera.intrinsics) }

    /// Labels every scene vehicle against the frame's id buffer.
    func labels(_ scene: SyntheticScene, vehicleIDs: [Int32]) -> [SyntheticLabel] {
        var visible = [Int](repeating: 0, count: scene.vehicles.count)
        var inView = visible
        let width = camera.intrinsics.width, crop = view
        for (index, id) in vehicleIDs.enumerated() where id >= 0 {
            visible[Int(id)] += 1
            let column = index % width, row = index / width
            if column >= crop.x, column < crop.x + crop.width, row >= crop.y, row < crop.y + crop.height {
                inView[Int(id)] += 1
            }
        }
        return scene.vehicles.enumerated().map { i, vehicle in
            let rect = projectedRectangle(vehicle.bounds.corners)
            let alone = unoccludedPixels(vehicle, rect: rect)
            let viewTruncation = truncation(rect, x: Double(crop.x), y: Double(crop.y), width: Double(crop.width), height: Double(crop.height))
            let occlusion = alone > 0 ? max(0, 1 - Double(visible[i]) / Double(alone)) : 0
            return SyntheticLabel(
                vehicleIndex: i, box: vehicle.groundTruth, visiblePixels: visible[i], unoccludedPixels: alone,
                occlusion: occlusion, truncation: truncation(rect), isVisible: visible[i] >= minimumVisiblePixels,
                viewPixels: inView[i], viewTruncation: viewTruncation,
                isInView: inView[i] >= minimumVisiblePixels && viewTruncation <= Self.maximumViewTruncation)
        }
    }

    /// The 2-D bounding rectangle (min x, min y, max x, max y) of a box's projection, clipped to
    /// the part in front of the camera; `nil` when it is entirely behind.
    func projectedRectangle(_ corners: [SIMD3<Double>]) -> SIMD4<Double>? {
        let near = 0.05
        let h = corners.map(camera.homogeneous)
        var points: [SIMD2<Double>] = []
        for a in h where a.z >= near { points.append(SIMD2(a.x / a.z, a.y / a.z)) }
        // Edges of the box: corners differing in one index bit.
        for i in 0..<8 {
            for bit in [1, 2, 4] where i & bit == 0 {
                let a = h[i], b = h[i | bit]
                if (a.z < near) != (b.z < near) {
                    let s = (near - a.z) / (b.z - a.z)
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

    /// Fraction of a projected rectangle outside the frame.
    func truncation(_ rect: SIMD4<Double>?) -> Double {
        truncation(rect, x: 0, y: 0, width: Double(camera.intrinsics.width), height: Double(camera.intrinsics.height))
    }

    /// Fraction of a projected rectangle outside the image rectangle at (`x`, `y`) of `width` × `height`.
    func truncation(_ rect: SIMD4<Double>?, x: Double, y: Double, width: Double, height: Double) -> Double {
        guard let r = rect else { return 1 }
        let area = (r.z - r.x) * (r.w - r.y)
        guard area > 0 else { return 1 }
        let inside = max(0, min(r.z, x + width) - max(r.x, x)) * max(0, min(r.w, y + height) - max(r.y, y))
        return max(0, min(1, 1 - inside / area))
    }

    /// Pixels the vehicle covers with nothing else in the scene.
    func unoccludedPixels(_ vehicle: SyntheticVehicle, rect: SIMD4<Double>?) -> Int {
        guard let r = rect else { return 0 }
        let w = camera.intrinsics.width, h = camera.intrinsics.height
        let x0 = max(0, Int((r.x - 1).rounded(.down))), x1 = min(w - 1, Int((r.z + 1).rounded(.up)))
        let y0 = max(0, Int((r.y - 1).rounded(.down))), y1 = min(h - 1, Int((r.w + 1).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return 0 }
        let bounds = vehicle.bounds
        var count = 0
        for row in y0...y1 {
            for column in x0...x1 {
                let d = camera.direction(column, row)
                guard bounds.intersect(origin: camera.centre, direction: d, tMax: .infinity) != nil else { continue }
                if vehicle.parts.contains(where: { $0.intersect(origin: camera.centre, direction: d, tMax: .infinity) != nil }) {
                    count += 1
                }
            }
        }
        return count
    }
}
