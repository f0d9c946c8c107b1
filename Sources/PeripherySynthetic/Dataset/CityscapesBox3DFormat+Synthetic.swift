import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// Writing synthetic frames in the Cityscapes 3D layout (`CityscapesBox3DFormat`), split `train`,
/// city `synthetic`, frame `synthetic_000000_NNNNNN`. Each object also carries `in_view` (not a
/// Cityscapes field; its readers ignore it) so that the truth reads back exactly; its 2-D boxes
/// are the projected 3-D box clipped to the frame (the renderer keeps no visible-pixel box).
extension CityscapesBox3DFormat {
    /// The files of frame `index` of `dataset`: image, camera and boxes.
    static func files(_ dataset: SyntheticDataset, _ index: Int) -> (image: String, camera: String, boxes: String) {
        let stem = String(format: "synthetic_000000_%06d", index)
        return (
            "\(dataset.path)/leftImg8bit/train/synthetic/\(stem)_leftImg8bit.png",
            "\(dataset.path)/camera/train/synthetic/\(stem)_camera.json",
            "\(dataset.path)/gtBbox3d/train/synthetic/\(stem)_gtBbox3d.json"
        )
    }

    /// Writes one frame in the Cityscapes 3D layout under `dataset.path` (the image a hard link to
    /// `images/NNNNNN.png`).
    public static func write(index: Int, dataset: SyntheticDataset, setup: CameraSetup, labels: [SyntheticLabel]) throws {
        let files = files(dataset, index)
        for file in [files.image, files.camera, files.boxes] {
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        try? FileManager.default.removeItem(atPath: files.image)
        try FileManager.default.linkItem(atPath: dataset.file("images", index, "png"), toPath: files.image)
        let k = setup.intrinsics, p = setup.pose
        let intrinsic: [String: Any] = ["fx": k.fx, "fy": k.fy, "u0": k.cx, "v0": k.cy]
        let camera: [String: Any] = [
            "baseline": 0.0, "intrinsic": intrinsic,
            "extrinsic": ["baseline": 0.0, "x": p.forwardOfOrigin, "y": p.lateralOffset, "z": p.height, "yaw": p.yaw, "pitch": -p.pitch, "roll": p.roll],
        ]
        let sensor = p.sensorFromVehicle
        let rows = [sensor.rotation.row0, sensor.rotation.row1, sensor.rotation.row2].enumerated().map { r, row in
            [row.x, row.y, row.z, sensor.translation[r]]
        }
        let calibration = CameraCalibration(setup)
        let frame = SIMD4(0, 0, Double(k.width - 1), Double(k.height - 1))
        let objects: [[String: Any]] = labels.enumerated().map { i, label in
            let b = label.box.box
            var rect =
                calibration.projectedRectangle(b).map { r in
                    SIMD4(max(r.x, frame.x), max(r.y, frame.y), min(r.z, frame.z), min(r.w, frame.w))
                } ?? .zero
            if !(rect.x <= rect.z && rect.y <= rect.w) { rect = .zero }
            let xywh = [rect.x, rect.y, rect.z - rect.x, rect.w - rect.y]
            let name = label.box.label >= 0 && label.box.label < labelNames.count ? labelNames[label.box.label] : "unknown"
            return [
                "2d": ["modal": xywh, "amodal": xywh],
                "3d": [
                    "center": [b.x, b.y, b.z], "dimensions": [b.length, b.width, b.height],
                    "rotation": [cos(b.yaw / 2), 0.0, 0.0, sin(b.yaw / 2)], "type": name, "format": "CRS_ISO8855",
                ],
                "occlusion": label.occlusion, "truncation": label.truncation, "instanceId": i + 1, "label": name, "score": 1.0,
                "in_view": label.isInView,
            ]
        }
        let boxes: [String: Any] = [
            "imgWidth": k.width, "imgHeight": k.height, "objects": objects, "ignore": [Any](),
            "sensor": ["sensor_T_ISO_8855": rows, "fx": k.fx, "fy": k.fy, "u0": k.cx, "v0": k.cy, "baseline": 0.0],
        ]
        try AtomicFile.write(try JSONSerialization.data(withJSONObject: camera, options: [.prettyPrinted, .sortedKeys]), to: files.camera)
        try AtomicFile.write(try JSONSerialization.data(withJSONObject: boxes, options: [.prettyPrinted, .sortedKeys]), to: files.boxes)
    }
}
