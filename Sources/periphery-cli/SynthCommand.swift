import Dispatch
import Foundation
import Periphery

/// `periphery synth`: labelled frames of the synthetic world.
enum SynthCommand: Command {
    static let name = "synth"
    static let summary = "Render labelled frames of the synthetic driving world (images, calibrations, labels)."

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments,
            options: Set(
                ["frames", "seed", "out", "width", "height", "pitch", "yaw", "roll", "height-m", "fps", "blur", "near-two-wheelers", "world"]
                    + scenarioOptions),
            flags: ["network-inputs", "sequence", "kitti", "cityscapes3d"])
        try args.expectNoPositional()
        _ = try args.required("frames")
        _ = try args.required("seed")
        let frames = Int(try args.number("frames", default: 1, in: 1...1_000_000))
        let seed = UInt64(try args.number("seed", default: 0, in: 0...9.0e15))
        let out = try args.required("out")
        let scenario = try scenario(args)
        func optional(_ name: String, _ range: ClosedRange<Double>) throws(CLIError) -> Double? {
            args.value(name) == nil ? nil : try args.number(name, default: 0, in: range)
        }
        let world = try world(args)
        var camera = SyntheticCamera(
            width: Int(try args.number("width", default: 640, in: 64...4096)),
            height: Int(try args.number("height", default: 400, in: 64...4096)),
            pitchDegrees: try optional("pitch", -25...25), rollDegrees: try optional("roll", -25...25),
            yawDegrees: try optional("yaw", -25...25), heightMetres: try optional("height-m", 0.31...2.99))
        camera.heightRange = world.mountHeights
        if args.flag("sequence"), world != .basic {
            throw CLIError("--world \(world.rawValue) renders single frames; --sequence needs --world basic")
        }
        let dataset = SyntheticDataset(path: out)
        try dataset.writeCommand(command(arguments))
        let blur = try args.number("blur", default: 0, in: 0...20)
        let sampler = SceneSampler(nearTwoWheelers: Int(try args.number("near-two-wheelers", default: 0, in: 0...8)))
        if args.flag("sequence") {
            return try sequence(
                args, frames: frames, seed: seed, camera: camera, dataset: dataset, blur: blur, sampler: sampler, scenario: scenario)
        }
        let progress = ProgressLine(total: frames)
        let preprocessor = args.flag("network-inputs") ? Preprocessor() : nil
        var vehicles = 0
        for index in 0..<frames {
            let frameSeed = seed &* 1_000_003 &+ UInt64(index)
            var random = SyntheticRandom(seed: SyntheticRandom.mix(frameSeed ^ 0x5EED_CA3E))
            let setup = try camera.draw(&random)
            var options = SceneRenderer.Options()
            options.noiseSeed = frameSeed
            options.blurSigma = blur
            let frame = SceneRenderer(options: options).render(world.scene(seed: frameSeed, traffic: sampler), intrinsics: setup.intrinsics, pose: setup.pose)
            try dataset.write(index: index, image: frame.image, setup: setup, labels: frame.visibleLabels)
            if args.flag("kitti") {
                try KITTIObjectFormat.write(index: index, dataset: dataset, setup: setup, labels: frame.visibleLabels)
            }
            if args.flag("cityscapes3d") {
                try CityscapesBox3DFormat.write(index: index, dataset: dataset, setup: setup, labels: frame.visibleLabels)
            }
            if let preprocessor {
                try NetworkInputRecord(image: frame.image, setup: setup, preprocessor: preprocessor)
                    .write(to: dataset.file("network", index, "bin"))
            }
            vehicles += frame.visibleLabels.count
            progress.update(index + 1)
        }
        progress.finish()
        printError("\(frames) frames, \(vehicles) visible vehicles -> \(out)")
        return 0
    }

    /// The `--world` option: `basic` (the default) or `structured`.
    static func world(_ args: Arguments) throws(CLIError) -> SyntheticWorld {
        guard let name = args.value("world") else { return .basic }
        guard let world = SyntheticWorld(rawValue: name) else { throw CLIError("--world must be basic or structured, got '\(name)'") }
        return world
    }

    /// The command line as `synth.json` records it: `periphery synth` and the arguments, without
    /// `--out` (where the data lay is not how to make it), each quoted for a POSIX shell where needed.
    static func command(_ arguments: [String]) -> String {
        var kept: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--out" {
                _ = rest.popFirst()
            } else if !argument.hasPrefix("--out=") {
                kept.append(argument)
            }
        }
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.=/:,+")
        let quoted = kept.map { $0.allSatisfy(plain.contains) && !$0.isEmpty ? $0 : "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return (["periphery", "synth"] + quoted).joined(separator: " ")
    }
}
