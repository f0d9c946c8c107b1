import PeripheryCore
import PeripheryGeometry

/// One frame of a labelled dataset: the picture, its camera and its ground truth in the vehicle frame.
public struct LabelledFrame: Sendable {
    /// The frame's name in its dataset (`000012`, `aachen_000000_000019`).
    public var name: String
    public var image: RGBImage
    public var setup: CameraSetup
    /// Vehicles in the detector's view, and the don't-care ones (out of view, or not a Safety40 class).
    public var truth: FrameTruth
    /// Image regions (x1, y1, x2, y2; source pixels) whose detections count neither way: KITTI's
    /// `DontCare` regions without a 3-D box.
    public var ignoredRegions: [SIMD4<Double>]
    /// What the reader let through but a user should know (an unknown class read as don't-care).
    public var warnings: [String]

    /// Which labelled vehicles of a real dataset the detector can be asked to find: the rule of the
    /// synthetic world (`docs/training.md` §6) from what a dataset gives. At most half of the box's
    /// projection lies outside the focal-matched crop, and its visible 2-D box (when the dataset has
    /// one) covers at least `minimumViewPixels` of the crop.
    public static func isInView(_ box: VehicleBox, visible: SIMD4<Double>?, calibration: CameraCalibration) -> Bool {
        guard calibration.viewTruncation(box) <= maximumViewTruncation else { return false }
        guard let visible else { return true }
        return calibration.crop.overlap(visible) >= Double(minimumViewPixels)
    }

    /// The synthetic world's limits (its renderer's minimum visible pixels; KITTI's 50 % truncation).
    public static let maximumViewTruncation = 0.5
    public static let minimumViewPixels = 40

    /// `detections` without those whose projected box has at least half its rectangle inside an
    /// ignored region (KITTI's rule for `DontCare`: neither a true nor a false positive).
    public func removingIgnored(_ detections: [Detection]) -> [Detection] {
        guard !ignoredRegions.isEmpty else { return detections }
        let calibration = CameraCalibration(setup)
        return detections.filter { detection in
            guard let r = calibration.projectedRectangle(detection.box) else { return true }
            let area = (r.z - r.x) * (r.w - r.y)
            return !ignoredRegions.contains { region in
                let inside = max(0, min(r.z, region.z) - max(r.x, region.x)) * max(0, min(r.w, region.w) - max(r.y, region.y))
                return area > 0 && inside >= 0.5 * area
            }
        }
    }
}
