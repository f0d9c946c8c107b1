import Foundation
import Periphery

/// `periphery prepare`: a labelled dataset of any layout as the trainer reads it.
enum PrepareCommand: Command {
    static let name = "prepare"
    static let summary = "Turn a labelled dataset (native, KITTI, Cityscapes 3D) into the trainer's network inputs."
    static let help = """
        USAGE: periphery prepare --data DIR --out OUT [--layout L] [--split S] [--mount-height M] [--mount-pitch DEG] [--strict]

        Reads every frame of a labelled dataset and writes, numbered from 0 in frame-name order:
        OUT/network/NNNNNN.bin (the engine's own focal-matched crop, resize and letterbox of the frame
        and its ProjectionLUT, as `synth --network-inputs` writes them), OUT/calibration/NNNNNN.json,
        OUT/labels/NNNNNN.json (vehicle-frame boxes; "in_view" false for labels out of the detector's
        view and for classes that are not Safety40's, which have "label" -1; KITTI DontCare regions as
        "ignored_regions", source pixels, and as a don't-care label at each head cell whose centre
        0.75 m above the road projects into one) and OUT/sources.csv (index, source image). OUT/complete is
        written last. tools/train.py runs this for every --data directory that has no network inputs.

        OPTIONS:
        \(DatasetArguments.help)
          --out OUT           output directory
          --help              show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: DatasetArguments.options.union(["out"]), flags: DatasetArguments.flags)
        try args.expectNoPositional()
        let dataset = try DatasetArguments.open(args)
        let out = SyntheticDataset(path: try args.required("out"))
        for folder in ["network", "calibration", "labels"] {
            try FileManager.default.createDirectory(atPath: "\(out.path)/\(folder)", withIntermediateDirectories: true)
        }
        try? FileManager.default.removeItem(atPath: out.path + "/complete")
        let preprocessor = Preprocessor()
        let progress = ProgressLine(total: dataset.frames.count)
        var sources = "index,source\n", index = 0, vehicles = 0
        let skipped = try DatasetArguments.forEachFrame(dataset, strict: args.flag("strict")) { frame in
            try NetworkInputRecord(image: frame.image, setup: frame.setup, preprocessor: preprocessor).write(to: out.file("network", index, "bin"))
            try AtomicFile.write(CalibrationFile.encode(frame.setup), to: out.file("calibration", index, "json"))
            func entry(_ truth: GroundTruthBox, inView: Bool) -> [String: Any] {
                let b = truth.box
                return [
                    "class": VehicleClass(rawValue: truth.label)?.name ?? "unknown", "label": truth.label, "x": b.x, "y": b.y, "z": b.z,
                    "length": b.length, "width": b.width, "height": b.height, "yaw": b.yaw, "in_view": inView,
                ]
            }
            let regions = ignoredCells(frame).map { GroundTruthBox(label: -1, box: $0) }
            let labels: [String: Any] = [
                "vehicles": frame.truth.vehicles.map { entry($0, inView: true) }
                    + (frame.truth.dontCare + regions).map { entry($0, inView: false) },
                "ignored_regions": frame.ignoredRegions.map { [$0.x, $0.y, $0.z, $0.w] },
            ]
            try AtomicFile.write(try JSONSerialization.data(withJSONObject: labels, options: [.sortedKeys]), to: out.file("labels", index, "json"))
            sources += "\(index),\(frame.name)\n"
            vehicles += frame.truth.vehicles.count
            index += 1
            progress.update(index)
        }
        progress.finish()
        try AtomicFile.write(Data(sources.utf8), to: out.path + "/sources.csv")
        try AtomicFile.write(Data("\(index) frames\n".utf8), to: out.path + "/complete")
        printError("\(index) frames (\(skipped) skipped), \(vehicles) vehicles in view -> \(out.path)")
        return 0
    }

    /// Head cells whose centre, 0.75 m above the road, projects into one of the frame's ignored
    /// image regions, as don't-care boxes: the trainer ignores the anchors around a don't-care
    /// label, so a KITTI DontCare region is honoured without the trainer knowing the camera.
    static func ignoredCells(_ frame: LabelledFrame) -> [VehicleBox] {
        guard !frame.ignoredRegions.isEmpty else { return [] }
        let calibration = CameraCalibration(frame.setup)
        return stride(from: 0, to: AnchorGrid.anchors.count, by: Safety40.anchorSizesPerCell * Safety40.anchorRotationsPerCell).compactMap { i in
            let cell = AnchorGrid.anchors[i]
            let centre = SIMD3(cell.y + Frames.gridToVehicle.translation.x, -cell.x, 0.75)
            guard let p = calibration.sourcePoint(centre),
                  frame.ignoredRegions.contains(where: { p.x >= $0.x && p.x <= $0.z && p.y >= $0.y && p.y <= $0.w }) else { return nil }
            return VehicleBox(x: centre.x, y: centre.y, z: centre.z, length: 1, width: 1, height: 1.5, yaw: 0)
        }
    }
}
