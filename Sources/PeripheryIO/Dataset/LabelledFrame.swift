import PeripheryCore
import PeripheryGeometry

/// One frame of a labelled dataset: the picture, its camera and its ground truth in the vehicle frame.
public struct LabelledFrame: Sendable {
    /// The frame's name in its dataset (`000012`, `aachen_000000_000019`).
    public var name: String
    public var image: RGBImage
    public var setup: CameraSetup
    /// Vehicles in the detector's view, and the don't-care ones (out of view, or not a Safety40 class).
    public var truth: GroundTruth
    /// Image regions (x1, y1, x2, y2; source pixels) whose detections count neither way: KITTI's
    /// `DontCare` regions without a 3-D box.
    public var ignoredRegions: [SIMD4<Double>]
    /// What the reader let through but a user should know (an unknown class read as don't-care).
    public var warnings: [String]

    /// Which labelled vehicles of a real dataset the detector can be asked to find: the rule of the
    /// synthetic world (`docs/guides/training.md` §6) from what a dataset gives. At most half of the box's
    /// projection lies outside the focal-matched crop, and its visible 2-D box (when the dataset has
    /// one) covers at least `minimumViewPixels` of the crop.
    public static func isInView(_ box: VehicleBox, visible: SIMD4<Double>?, calibration: CameraCalibration) -> Bool {
        guard calibration.viewTruncation(box) <= maximumViewTruncation else { return false }
        guard let visible else { return true }
        return ImageRectangle.intersectionArea(visible, calibration.crop.rectangle) >= Double(minimumViewPixels)
    }

    /// The most of a vehicle's projection that may lie outside the view: KITTI's rule, whose
    /// evaluation ignores objects truncated by more than 50 % (the synthetic world's labeller uses it too).
    public static let maximumViewTruncation = 0.5
    /// The fewest visible pixels inside the view (the synthetic world's renderer's default minimum).
    public static let minimumViewPixels = 40

    /// `detections` without those whose projected box has at least half its rectangle inside an
    /// ignored region (KITTI's rule for `DontCare`: neither a true nor a false positive).
    public func removingIgnored(_ detections: [Detection]) -> [Detection] {
        guard !ignoredRegions.isEmpty else { return detections }
        let calibration = CameraCalibration(setup)
        return detections.filter { detection in
            guard let r = calibration.projectedRectangle(detection.box) else { return true }
            let area = (r.z - r.x) * (r.w - r.y)
            return !ignoredRegions.contains { area > 0 && ImageRectangle.intersectionArea(r, $0) >= 0.5 * area }
        }
    }

    /// Head cells whose centre, 0.75 m above the road, projects into one of the ignored regions, as
    /// don't-care boxes: the trainer ignores the anchors around a don't-care label, so a KITTI
    /// DontCare region is honoured without the trainer knowing the camera.
    public var ignoredRegionCells: [VehicleBox] {
        guard !ignoredRegions.isEmpty else { return [] }
        let calibration = CameraCalibration(setup)
        let perCell = Safety40.anchorSizesPerCell * Safety40.anchorRotationsPerCell
        return stride(from: 0, to: AnchorGrid.anchors.count, by: perCell).compactMap { i in
            let cell = AnchorGrid.anchors[i]
            var centre = CoordinateFrames.gridToVehicle.apply(SIMD3(cell.x, cell.y, 0))
            centre.z = 0.75
            guard let p = calibration.sourcePoint(centre),
                ignoredRegions.contains(where: { p.x >= $0.x && p.x <= $0.z && p.y >= $0.y && p.y <= $0.w })
            else { return nil }
            return VehicleBox(x: centre.x, y: centre.y, z: centre.z, length: 1, width: 1, height: 1.5, yaw: 0)
        }
    }
}
