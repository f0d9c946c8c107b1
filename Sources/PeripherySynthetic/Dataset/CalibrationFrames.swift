import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// Calibration frames: a `periphery synth` dataset (each frame with its own calibration) or a
/// drive directory (one calibration for all frames).
public struct CalibrationFrames {
    private enum Source {
        case dataset(SyntheticDataset, [Int])
        case drive(DriveDirectory, CameraSetup)
    }

    private let source: Source

    /// The frames in `directory`: a dataset when it has `calibration/` and frames, else a drive
    /// directory whose frames all use `calibration` (default `DIR/calibration.json`).
    ///
    /// - Throws: `DriveError` when neither can be read, the drive has no frames or no calibration.
    public init(directory: String, calibration: String?) throws {
        let dataset = SyntheticDataset(path: directory)
        if FileManager.default.fileExists(atPath: directory + "/calibration"),
            let indices = try? dataset.indices(), !indices.isEmpty
        {
            source = .dataset(dataset, indices)
            return
        }
        let drive = try DriveDirectory(path: directory)
        guard !drive.frames.isEmpty else { throw DriveError.noFrames(path: directory) }
        let path = calibration ?? directory + "/calibration.json"
        guard FileManager.default.fileExists(atPath: path) else {
            throw DriveError.noCalibration(path: directory, expected: path)
        }
        source = .drive(drive, try CalibrationFile.load(path: path))
    }

    /// `dataset` or `drive`, for the metadata.
    public var kind: String {
        switch source {
        case .dataset: "dataset"
        case .drive: "drive"
        }
    }

    /// Number of frames.
    public var count: Int {
        switch source {
        case .dataset(_, let indices): indices.count
        case .drive(let drive, _): drive.frames.count
        }
    }

    /// `n` positions spread evenly over the frames (all of them when there are fewer).
    public func evenlySpread(_ n: Int) -> [Int] {
        let total = count
        guard n < total else { return Array(0..<total) }
        return (0..<n).map { $0 * total / n }
    }

    /// The frame at `position` for messages.
    public func name(_ position: Int) -> String {
        switch source {
        case .dataset(let dataset, let indices): String(format: "%@ frame %06d", dataset.path, indices[position])
        case .drive(let drive, _): drive.frames[position].path
        }
    }

    /// The frame at `position` and its camera.
    public func read(_ position: Int) throws -> (RGBImage, CameraSetup) {
        switch source {
        case .dataset(let dataset, let indices):
            let (image, setup, _) = try dataset.read(index: indices[position])
            return (image, setup)
        case .drive(let drive, let setup):
            let entry = drive.frames[position]
            var frameSetup = setup
            if let intrinsics = entry.intrinsics { frameSetup.intrinsics = intrinsics }
            return (try ImageFile.read(path: entry.path), frameSetup)
        }
    }
}
