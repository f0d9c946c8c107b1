import Foundation
import Periphery

extension SynthCommand {
    /// The options of `--scenario`, each named as the scenario's parameter it sets.
    static let scenarioOptions = ["scenario"] + SyntheticScenario.Parameter.allCases.map(\.rawValue)

    /// The scenario of `--scenario` and its parameters (checked by `SyntheticScenario`), nil without one.
    static func scenario(_ args: Arguments) throws -> SyntheticScenario? {
        let given = SyntheticScenario.Parameter.allCases.filter { args.value($0.rawValue) != nil }
        guard let name = args.value("scenario") else {
            if let first = given.first { throw CLIError("--\(first.rawValue) needs --scenario") }
            return nil
        }
        guard args.flag("sequence") else { throw CLIError("--scenario needs --sequence") }
        func value(_ parameter: SyntheticScenario.Parameter) throws(CLIError) -> Double? {
            args.value(parameter.rawValue) == nil ? nil : try args.number(parameter.rawValue, default: 0, in: -Double.infinity...Double.infinity)
        }
        return try SyntheticScenario(
            try SyntheticScenario.Kind(name: name), egoSpeed: try value(.egoSpeed), leadSpeed: try value(.leadSpeed), gap: try value(.gap),
            leadDeceleration: try value(.leadDeceleration))
    }

    /// `synth --sequence`: one drive at `--fps` frames/s in the reference drive layout, with its truth.
    static func sequence(
        _ args: Arguments, frames: Int, seed: UInt64, camera: SyntheticCamera, dataset: SyntheticDataset, blur: Double,
        sampler: SceneSampler, scenario: SyntheticScenario?
    ) throws -> Int32 {
        let fps = try args.number("fps", default: 10, in: 1...120)
        var random = SyntheticRandom(seed: SyntheticRandom.mix(seed ^ 0x5EED_CA3E))
        let setup = try camera.draw(&random)
        let drive = SyntheticDrive(seed: seed, duration: Double(frames) / fps, scenario: scenario, sampler: sampler)
        // A scripted drive ends before its lead comes within 0.5 m.
        let recorded = drive.recordedFrames(requested: frames, fps: fps)
        let progress = ProgressLine(total: recorded)
        var recorder = SyntheticDriveRecorder(dataset: dataset)
        recorder.writesKITTI = args.flag("kitti")
        recorder.writesCityscapes3D = args.flag("cityscapes3d")
        recorder.renderOptions.blurSigma = blur
        let vehicles = try recorder.record(drive, camera: setup, frames: recorded, fps: fps) {
            progress.update($0)
        }
        progress.finish()
        printError(
            String(
                format: "%d frames (%.1f s at %.1f m/s), %d visible vehicle labels -> %@", recorded, Double(recorded) / fps,
                drive.egoSpeed, vehicles, dataset.path))
        return 0
    }
}
