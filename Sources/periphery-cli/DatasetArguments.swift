import Foundation
import Periphery

/// The dataset options `eval` and `prepare` share, and their rule for a frame that cannot be read
/// (docs/guides/training.md §8): a warning and the frame skipped, or with `--strict` the end of the run.
enum DatasetArguments {
    static let options: Set<String> = ["data", "layout", "split", "mount-height", "mount-pitch"]
    static let flags: Set<String> = ["strict"]

    static let help = """
          --data DIR          dataset directory: native (images/, calibration/, labels/), KITTI 3D object
                              (image_2/, label_2/, calib/) or Cityscapes 3D (leftImg8bit/, camera/, gtBbox3d/);
                              the layout is found from the folders (docs/guides/training.md §6)
          --layout L          read this layout when a directory holds several: native, kitti, cityscapes3d
          --split S           Cityscapes 3D: only this split (default: every split)
          --mount-height M    KITTI: camera height above the road (else DIR/mount.json)
          --mount-pitch DEG   KITTI: camera pitch, nose up positive (default 0, or DIR/mount.json)
          --strict            stop at a frame that cannot be read instead of skipping it with a warning
        """

    /// Opens the dataset the arguments name.
    static func open(_ args: Arguments) throws -> LabelledDataset {
        var options = LabelledDataset.Options()
        if let layout = args.value("layout") {
            guard let value = LabelledDataset.Layout(rawValue: layout) else {
                throw CLIError("--layout must be one of \(LabelledDataset.Layout.allCases.map(\.rawValue).joined(separator: ", ")), got '\(layout)'")
            }
            options.layout = value
        }
        options.split = args.value("split")
        if args.value("mount-height") != nil { options.mountHeight = try args.number("mount-height", default: 0, in: 0.31...2.99) }
        if args.value("mount-pitch") != nil { options.mountPitchDegrees = try args.number("mount-pitch", default: 0, in: -25...25) }
        return try LabelledDataset(path: try args.required("data"), options: options)
    }

    /// Reads every frame in order and hands each to `body`; returns how many were skipped.
    static func forEachFrame(_ dataset: LabelledDataset, strict: Bool, _ body: (LabelledFrame) throws -> Void) throws -> Int {
        var skipped = 0
        for file in dataset.entries {
            let frame: LabelledFrame
            do {
                frame = try dataset.read(file)
            } catch {
                if strict { throw error }
                printError("warning: skipped frame \(file.name): \(error)")
                skipped += 1
                continue
            }
            for warning in frame.warnings { printError("warning: \(warning)") }
            try body(frame)
        }
        if skipped > 0 { printError("warning: \(skipped) of \(dataset.entries.count) frames skipped") }
        return skipped
    }
}
