import Foundation
import Periphery

extension SynthCommand {
    /// `synth --sequence`: one drive at `--fps` frames/s in the reference drive layout, with its truth.
    static func sequence(
        _ args: Arguments, frames: Int, seed: UInt64, camera: SyntheticCamera, dataset: SyntheticDataset, blur: Double,
        sampler: SceneSampler
    ) throws -> Int32 {
        let fps = try args.number("fps", default: 10, in: 1...120)
        var random = SyntheticRandom(seed: SyntheticRandom.mix(seed ^ 0x5EED_CA3E))
        let setup = try camera.draw(&random)
        let drive = SyntheticDrive(seed: seed, duration: Double(frames) / fps, sampler: sampler)
        let progress = ProgressLine(total: frames)
        var recorder = SyntheticDriveRecorder(dataset: dataset)
        recorder.writesKITTI = args.flag("kitti")
        recorder.writesCityscapes3D = args.flag("cityscapes3d")
        recorder.renderOptions.blurSigma = blur
        let vehicles = try recorder.record(drive, camera: setup, frames: frames, fps: fps) {
            progress.update($0)
        }
        progress.finish()
        printError(
            String(
                format: "%d frames (%.1f s at %.1f m/s), %d visible vehicle labels -> %@", frames, Double(frames) / fps,
                drive.egoSpeed, vehicles, dataset.path))
        return 0
    }
}
