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
        written last. periphery-train runs this for every --data directory that has no network inputs.

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
        let progress = ProgressLine(total: dataset.entries.count)
        var sources = "index,source\n", index = 0, vehicles = 0
        let skipped = try DatasetArguments.forEachFrame(dataset, strict: args.flag("strict")) { frame in
            try NetworkInputRecord(image: frame.image, setup: frame.setup, preprocessor: preprocessor).write(to: out.file("network", index, "bin"))
            try AtomicFile.write(CalibrationFile.encode(frame.setup), to: out.file("calibration", index, "json"))
            let regions = frame.ignoredRegionCells.map { GroundTruthBox(label: -1, box: $0) }
            let labels: [String: Any] = [
                "vehicles": frame.truth.vehicles.map { NativeLabelsFile.entry($0, inView: true) }
                    + (frame.truth.dontCare + regions).map { NativeLabelsFile.entry($0, inView: false) },
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
}
