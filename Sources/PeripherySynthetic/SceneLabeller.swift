import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// Labels the vehicles of a rendered frame: visible and unoccluded pixel counts, occlusion and
/// truncation.
struct SceneLabeller: Sendable {
    let camera: RayCamera
    let minimumVisiblePixels: Int

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
            let viewTruncation = ImageRectangle.fractionOutside(rect, crop.rectangle)
            let occlusion = alone > 0 ? max(0, 1 - Double(visible[i]) / Double(alone)) : 0
            return SyntheticLabel(
                vehicleIndex: i, box: vehicle.groundTruth, visiblePixels: visible[i], unoccludedPixels: alone,
                occlusion: occlusion, truncation: truncation(rect), isVisible: visible[i] >= minimumVisiblePixels,
                viewPixels: inView[i], viewTruncation: viewTruncation,
                isInView: inView[i] >= minimumVisiblePixels && viewTruncation <= LabelledFrame.maximumViewTruncation)
        }
    }

    /// The 2-D bounding rectangle (min x, min y, max x, max y) of a box's projection, clipped to
    /// the part in front of the camera; `nil` when it is entirely behind.
    func projectedRectangle(_ corners: [SIMD3<Double>]) -> SIMD4<Double>? {
        ImageRectangle.bounding(homogeneousCorners: corners.map(camera.homogeneous))
    }

    /// Fraction of a projected rectangle outside the frame.
    func truncation(_ rect: SIMD4<Double>?) -> Double {
        ImageRectangle.fractionOutside(rect, SIMD4(0, 0, Double(camera.intrinsics.width), Double(camera.intrinsics.height)))
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
