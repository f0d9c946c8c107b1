import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// A labelled dataset on disk, as `periphery synth` writes it and `periphery eval` reads it:
///
/// ```
/// DIR/images/000000.png         the camera frame
/// DIR/calibration/000000.json   its calibration file (docs/reference/geometry.md format)
/// DIR/labels/000000.json        {"vehicles": [{"class", "label", "x", "y", "z", "length", "width",
///                                 "height", "yaw", "visible_pixels", "view_pixels", "view_truncation",
///                                 "in_view", "occlusion", "truncation"}]}
/// DIR/synth.json                {"command": "periphery synth …"}, the command that made it (no --out)
/// ```
/// Labels list the vehicles visible in the frame, in the vehicle frame (z is the box centre).
/// `view_pixels` counts the visible pixels inside the focal-matched crop, the part of the frame the
/// network is given, `view_truncation` the fraction of the box's projection outside it; `in_view`
/// says whether the vehicle counts (`SyntheticLabel.isInView`). Vehicles not in view
/// are read as don't-care truth (`GroundTruth`); labels without `in_view` count as in view. `periphery synth --kitti`
/// adds the KITTI layout (`KITTIObjectFormat`); a directory with only that layout and `calibration/`
/// reads the same way.
public struct SyntheticDataset: Sendable {
    /// The dataset directory.
    public let path: String

    /// A dataset at `path` (created on first write).
    public init(path: String) { self.path = path }

    /// The path of frame `index`'s file in `folder`: `DIR/folder/NNNNNN.ext`.
    public func file(_ folder: String, _ index: Int, _ ext: String) -> String {
        String(format: "%@/%@/%06d.%@", path, folder, index, ext)
    }

    /// Whether the frames are in the KITTI layout only (`image_2/`, `label_2/`, `calib/`, with our
    /// `calibration/` files beside them) rather than in `images/` and `labels/`.
    public var isKITTI: Bool {
        !FileManager.default.fileExists(atPath: path + "/images") && FileManager.default.fileExists(atPath: path + "/image_2")
    }

    /// Frame indices present, in order (from the image files).
    public func indices() throws(DriveError) -> [Int] {
        let folder = path + (isKITTI ? "/image_2" : "/images")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw .unreadable(path: folder, reason: "not a readable directory")
        }
        return names.compactMap { $0.hasSuffix(".png") ? Int($0.dropLast(4)) : nil }.sorted()
    }

    /// Records the command that made the dataset in `DIR/synth.json` (`{"command": "periphery synth …"}`),
    /// so that weights trained or calibrated on it can name their data by how to make it again, not by
    /// the folder it lay in on one machine.
    public func writeCommand(_ command: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let data = try JSONSerialization.data(withJSONObject: ["command": command], options: [.sortedKeys, .withoutEscapingSlashes])
        try AtomicFile.write(data, to: path + "/synth.json")
    }

    /// Writes one frame, its calibration and its visible labels (with `ids`, one per label, as
    /// each label's `id`: the vehicle's identity across the frames of a drive).
    public func write(index: Int, image: RGBImage, setup: CameraSetup, labels: [SyntheticLabel], ids: [Int]? = nil) throws {
        for folder in ["images", "calibration", "labels"] {
            try FileManager.default.createDirectory(atPath: "\(path)/\(folder)", withIntermediateDirectories: true)
        }
        try ImageFile.writePNG(image, to: file("images", index, "png"))
        try AtomicFile.write(CalibrationFile.encode(setup), to: file("calibration", index, "json"))
        precondition(ids == nil || ids?.count == labels.count, "one id per label")
        let vehicles: [[String: Any]] = labels.enumerated().map { i, l in
            var entry = NativeLabelsFile.entry(l.box, inView: l.isInView).merging([
                "visible_pixels": l.visiblePixels, "view_pixels": l.viewPixels, "view_truncation": l.viewTruncation,
                "occlusion": l.occlusion, "truncation": l.truncation,
            ]) { first, _ in first }
            if let ids { entry["id"] = ids[i] }
            return entry
        }
        let data = try JSONSerialization.data(withJSONObject: ["vehicles": vehicles], options: [.sortedKeys])
        try AtomicFile.write(data, to: file("labels", index, "json"))
    }

    /// Reads one frame's picture, calibration and ground truth.
    ///
    /// - Throws: the image, calibration or label error, naming the file and field.
    public func read(index: Int) throws -> (image: RGBImage, setup: CameraSetup, truth: GroundTruth) {
        let kitti = isKITTI
        let image = try ImageFile.read(path: file(kitti ? "image_2" : "images", index, "png"))
        let setup = try CalibrationFile.load(path: file("calibration", index, "json"))
        if kitti {
            return (image, setup, try KITTIObjectFormat.readLabels(label: file("label_2", index, "txt"), calib: file("calib", index, "txt")))
        }
        return (image, setup, try NativeLabelsFile.read(path: file("labels", index, "json")))
    }
}
