import Foundation
import PeripheryCore
import PeripheryGeometry

/// A labelled dataset in any layout that `periphery eval` and `periphery prepare` read
/// (docs/guides/training.md §6): the native one `periphery synth` writes, KITTI 3D object, Cityscapes 3D.
///
/// Its entries (the files of each frame) are listed when the dataset is opened and read one at a
/// time; a frame that cannot be read throws its own error naming the file and field, so that a
/// caller can skip it (docs/guides/training.md §8) and go on.
public struct LabelledDataset: Sendable {
    /// The directory layouts.
    public enum Layout: String, Sendable, CaseIterable {
        /// `images/`, `calibration/`, `labels/` (`SyntheticDataset`).
        case native
        /// `image_2/`, `label_2/`, `calib/` and the mount (`KITTIObjectFormat`, `KITTIMount`).
        case kitti
        /// `leftImg8bit/`, `camera/`, `gtBbox3d/` (`CityscapesBox3DFormat`).
        case cityscapes3D = "cityscapes3d"

        /// The folder whose presence marks the layout.
        var marker: String {
            switch self {
            case .native: "images"
            case .kitti: "image_2"
            case .cityscapes3D: "leftImg8bit"
            }
        }
    }

    /// How to open a dataset.
    public struct Options: Sendable {
        /// The layout; `nil` takes the first of native, KITTI, Cityscapes 3D whose folder exists.
        public var layout: Layout?
        /// Cityscapes 3D: only this split (`train`, `val`, `test`); `nil` reads every split.
        public var split: String?
        /// KITTI: the mount's height and pitch, instead of (or over) `mount.json`.
        public var mountHeight: Double?
        public var mountPitchDegrees: Double?

        public init(layout: Layout? = nil, split: String? = nil, mountHeight: Double? = nil, mountPitchDegrees: Double? = nil) {
            self.layout = layout
            self.split = split
            self.mountHeight = mountHeight
            self.mountPitchDegrees = mountPitchDegrees
        }
    }

    /// The files of one frame.
    public struct Entry: Sendable, Hashable {
        /// The frame's name (`000012`, `aachen_000000_000019`).
        public let name: String
        public let image: String
        /// The calibration, `calib` or `camera.json` file.
        public let camera: String
        /// The labels, `label_2` or `gtBbox3d` file.
        public let labels: String
    }

    public let path: String
    public let layout: Layout
    /// The files of every frame, in name order.
    public let entries: [Entry]
    let kittiMount: KITTIMount?

    /// Opens the dataset at `path` and lists its entries.
    ///
    /// - Throws: `DriveError` when the directory holds no known layout, the layout's folders cannot
    ///   be listed or (KITTI) the mount is missing or bad.
    public init(path: String, options: Options = Options()) throws(DriveError) {
        self.path = path
        let manager = FileManager.default
        func isDirectory(_ p: String) -> Bool {
            var flag: ObjCBool = false
            return manager.fileExists(atPath: p, isDirectory: &flag) && flag.boolValue
        }
        guard let layout = options.layout ?? Layout.allCases.first(where: { isDirectory(path + "/" + $0.marker) }) else {
            throw .unreadable(path: path, reason: "no dataset here: expected images/ (native), image_2/ (KITTI) or leftImg8bit/ (Cityscapes 3D)")
        }
        self.layout = layout
        func names(_ folder: String) throws(DriveError) -> [String] {
            guard let names = try? manager.contentsOfDirectory(atPath: folder) else {
                throw .unreadable(path: folder, reason: "not a readable directory")
            }
            return names.sorted()
        }
        func numbered(_ images: String, _ camera: (String) -> String, _ labels: (String) -> String) throws(DriveError) -> [Entry] {
            try names(path + "/" + images).compactMap { file in
                guard file.hasSuffix(".png"), Int(file.dropLast(4)) != nil else { return nil }
                let stem = String(file.dropLast(4))
                return Entry(name: stem, image: "\(path)/\(images)/\(file)", camera: camera(stem), labels: labels(stem))
            }
        }
        switch layout {
        case .native:
            kittiMount = nil
            entries = try numbered("images", { "\(path)/calibration/\($0).json" }, { "\(path)/labels/\($0).json" })
        case .kitti:
            kittiMount = try KITTIMount.load(root: path, height: options.mountHeight, pitchDegrees: options.mountPitchDegrees)
            entries = try numbered("image_2", { "\(path)/calib/\($0).txt" }, { "\(path)/label_2/\($0).txt" })
        case .cityscapes3D:
            kittiMount = nil
            var splits = [String]()
            if let split = options.split { splits = [split] } else { splits = try names(path + "/leftImg8bit") }
            var found: [Entry] = []
            for split in splits {
                for city in try names("\(path)/leftImg8bit/\(split)") where isDirectory("\(path)/leftImg8bit/\(split)/\(city)") {
                    let suffix = "_leftImg8bit.png"
                    for file in try names("\(path)/leftImg8bit/\(split)/\(city)") where file.hasSuffix(suffix) {
                        let stem = String(file.dropLast(suffix.count))
                        found.append(
                            Entry(
                                name: stem, image: "\(path)/leftImg8bit/\(split)/\(city)/\(file)",
                                camera: "\(path)/camera/\(split)/\(city)/\(stem)_camera.json",
                                labels: "\(path)/gtBbox3d/\(split)/\(city)/\(stem)_gtBbox3d.json"))
                    }
                }
            }
            entries = found
        }
        if entries.isEmpty { throw .noFrames(path: path) }
    }

    /// Reads the frame of one entry: its picture, camera and ground truth.
    ///
    /// - Throws: the image, calibration or label error naming the file and field;
    ///   `DriveError.frameSize` when the picture's size is not the calibration's (native) or the
    ///   size the labels state (Cityscapes 3D).
    public func read(_ entry: Entry) throws -> LabelledFrame {
        let image = try ImageFile.read(path: entry.image)
        let setup: CameraSetup
        var truth = GroundTruth(vehicles: []), ignoredRegions: [SIMD4<Double>] = [], warnings: [String] = []
        func add(_ box: GroundTruthBox, inView: Bool) {
            if inView { truth.vehicles.append(box) } else { truth.dontCare.append(box) }
        }
        switch layout {
        case .native:
            setup = try CalibrationFile.load(path: entry.camera)
            truth = try NativeLabelsFile.read(path: entry.labels)
            // The other layouts take the camera's size from the picture.
            let k = setup.intrinsics
            guard k.width == image.width, k.height == image.height else {
                throw DriveError.frameSize(path: entry.image, size: image.size, camera: k.size, cameraFile: entry.camera)
            }
        case .kitti:
            let mount = kittiMount ?? .velodyne
            let toVehicle: RigidTransform
            (setup, toVehicle) = try KITTIObjectFormat.readCamera(calib: entry.camera, width: image.width, height: image.height, mount: mount)
            let calibration = CameraCalibration(setup)
            for object in try KITTIObjectFormat.readObjects(label: entry.labels, vehicleFromRectified: toVehicle) {
                guard let box = object.box else {
                    ignoredRegions.append(object.rectangle)
                    continue
                }
                guard let label = KITTIObjectFormat.readLabels[object.type] else {
                    if object.type != "DontCare" { warnings.append("\(entry.labels): type '\(object.type)' is not a Safety40 class; read as don't-care") }
                    truth.dontCare.append(GroundTruthBox(label: -1, box: box))
                    continue
                }
                add(GroundTruthBox(label: label, box: box), inView: LabelledFrame.isInView(box, visible: object.rectangle, calibration: calibration))
            }
        case .cityscapes3D:
            let boxes = try CityscapesBox3DFormat.BoxFile(path: entry.labels)
            if let size = boxes.imageSize, size != (image.width, image.height) {
                throw DriveError.frameSize(
                    path: entry.image, size: image.size, camera: PixelSize(width: size.width, height: size.height), cameraFile: entry.labels)
            }
            setup = try CityscapesBox3DFormat.readCamera(path: entry.camera, width: image.width, height: image.height)
            let calibration = CameraCalibration(setup)
            for object in try boxes.objects(camera: setup) {
                guard let label = CityscapesBox3DFormat.readLabels[object.label] else {
                    warnings.append("\(entry.labels): label '\(object.label)' is not a Safety40 class; read as don't-care")
                    truth.dontCare.append(GroundTruthBox(label: -1, box: object.box))
                    continue
                }
                add(
                    GroundTruthBox(label: label, box: object.box),
                    inView: object.inView ?? LabelledFrame.isInView(object.box, visible: object.modal, calibration: calibration))
            }
        }
        return LabelledFrame(name: entry.name, image: image, setup: setup, truth: truth, ignoredRegions: ignoredRegions, warnings: warnings)
    }
}
