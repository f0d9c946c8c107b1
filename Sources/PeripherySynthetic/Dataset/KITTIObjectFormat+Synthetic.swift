import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// Writing synthetic labels in the KITTI layout (`KITTIObjectFormat`).
extension KITTIObjectFormat {
    /// The `label_2` line of one label seen by `setup`.
    static func labelLine(_ label: SyntheticLabel, setup: CameraSetup) -> String {
        let b = label.box
        let calibration = CameraCalibration(setup)
        let centre = setup.pose.cameraCentre
        let bottom = levelAxes * (SIMD3(b.box.x, b.box.y, b.box.z - b.box.height / 2) - centre)
        let heading = levelAxes * SIMD3(cos(b.box.yaw), sin(b.box.yaw), 0)
        let ry = atan2(-heading.z, heading.x)
        let alpha = wrap(ry - atan2(bottom.x, bottom.z))
        // The 2-D box: the corners in front of the camera, projected and clipped to the frame.
        let c = cos(b.box.yaw), s = sin(b.box.yaw)
        var lo = SIMD2<Double>(repeating: .infinity), hi = SIMD2<Double>(repeating: -.infinity)
        for corner in 0..<8 {
            let l = (corner & 1 == 0 ? 0.5 : -0.5) * b.box.length, w = (corner & 2 == 0 ? 0.5 : -0.5) * b.box.width
            let z = b.box.z + (corner & 4 == 0 ? 0.5 : -0.5) * b.box.height
            if let p = calibration.sourcePoint(SIMD3(b.box.x + c * l - s * w, b.box.y + s * l + c * w, z)) {
                lo = pointwiseMin(lo, p)
                hi = pointwiseMax(hi, p)
            }
        }
        let size = SIMD2(Double(setup.intrinsics.width - 1), Double(setup.intrinsics.height - 1))
        lo = pointwiseMin(pointwiseMax(lo, .zero), size)
        hi = pointwiseMin(pointwiseMax(hi, .zero), size)
        if !(lo.x <= hi.x && lo.y <= hi.y) { (lo, hi) = (.zero, .zero) }
        let occluded = label.occlusion < 0.1 ? 0 : (label.occlusion < 0.5 ? 1 : 2)
        let name = label.isInView && b.label >= 0 && b.label < typeNames.count ? typeNames[b.label] : "DontCare"
        return String(
            format: "%@ %.2f %d %.2f %.2f %.2f %.2f %.2f %.9f %.9f %.9f %.9f %.9f %.9f %.9f", name, min(max(label.truncation, 0), 1),
            occluded, alpha, lo.x, lo.y, hi.x, hi.y, b.box.height, b.box.width, b.box.length, bottom.x, bottom.y, bottom.z, ry)
    }

    /// Writes one frame in the KITTI layout under `dataset.path`.
    public static func write(index: Int, dataset: SyntheticDataset, setup: CameraSetup, labels: [SyntheticLabel]) throws {
        for folder in ["image_2", "label_2", "calib"] {
            try FileManager.default.createDirectory(atPath: "\(dataset.path)/\(folder)", withIntermediateDirectories: true)
        }
        let image = dataset.file("images", index, "png"), kittiImage = dataset.file("image_2", index, "png")
        try? FileManager.default.removeItem(atPath: kittiImage)
        try FileManager.default.linkItem(atPath: image, toPath: kittiImage)
        let text = labels.map { labelLine($0, setup: setup) }.joined(separator: "\n") + (labels.isEmpty ? "" : "\n")
        try AtomicFile.write(Data(text.utf8), to: dataset.file("label_2", index, "txt"))
        try AtomicFile.write(Data(calibText(setup).utf8), to: dataset.file("calib", index, "txt"))
        try AtomicFile.write(Data(#"{"vehicle_frame": "velodyne"}"#.utf8 + [0x0A]), to: dataset.path + "/" + KITTIMount.fileName)
    }
}
