import Dispatch
import Foundation
import Periphery

/// `periphery synth`: labelled frames of the synthetic world.
enum SynthCommand: Command {
    static let name = "synth"
    static let summary = "Render labelled frames of the synthetic driving world (images, calibrations, labels)."
    static let help = """
        USAGE: periphery synth --frames N --seed S --out DIR [--sequence --fps F] [--width W --height H]
                               [--pitch DEG --yaw DEG --roll DEG --height-m M] [--blur SIGMA] [--near-two-wheelers N]
                               [--kitti] [--cityscapes3d] [--network-inputs]

        Renders N independent frames of procedurally generated road scenes (deterministic in S) and
        writes DIR/images/NNNNNN.png, DIR/calibration/NNNNNN.json and DIR/labels/NNNNNN.json (the visible
        vehicles as vehicle-frame boxes with visible pixels, occlusion and truncation). The camera's
        focal length and the mount are drawn per frame unless the mount options fix them; the truth is
        always written out. DIR/synth.json records the command (without --out), by which the trainer
        names the data in the weights it writes.

        With --sequence, the frames are one drive at F frames/s instead: a road with curves, traffic
        that moves, bumps that pitch the body, one camera and mount for the whole drive, and the
        reference drive layout beside the frames (frames.csv, motion.csv with a noisy, biased gyro,
        location.csv, calibration.json) plus truth.json; labels then carry each vehicle's "id".
        `periphery run DIR` and `periphery eval --data DIR` both read the result.

        OPTIONS:
          --frames N        frames to render
          --seed S          scene seed (frame i uses scene seed S·1000003 + i)
          --out DIR         output directory
          --width W         frame width (default 640)
          --height H        frame height (default 400)
          --pitch DEG       fix the mount pitch (nose up positive)
          --yaw DEG         fix the mount yaw (left positive)
          --roll DEG        fix the mount roll
          --height-m M      fix the camera height above the road
          --sequence        render one drive instead of independent frames
          --fps F           frame rate of the drive (default 10)
          --blur SIGMA      Gaussian blur of this many pixels on every frame (default 0, none)
          --near-two-wheelers N
                            place N two-wheelers in the lanes 5.5-10.5 m ahead of every scene
                            before its other traffic (training data for the near field; default 0)
          --kitti           also write the KITTI object layout (image_2/, label_2/, calib/, mount.json)
          --cityscapes3d    also write the Cityscapes 3D layout (leftImg8bit/, camera/, gtBbox3d/)
          --network-inputs  also write DIR/network/NNNNNN.bin, the engine's network input and
                            ProjectionLUT for the frame (what periphery-train reads)
          --help            show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, options: ["frames", "seed", "out", "width", "height", "pitch", "yaw", "roll", "height-m", "fps", "blur", "near-two-wheelers"],
            flags: ["network-inputs", "sequence", "kitti", "cityscapes3d"])
        try args.expectNoPositional()
        _ = try args.required("frames")
        _ = try args.required("seed")
        let frames = Int(try args.number("frames", default: 1, in: 1...1_000_000))
        let seed = UInt64(try args.number("seed", default: 0, in: 0...9.0e15))
        let out = try args.required("out")
        func optional(_ name: String, _ range: ClosedRange<Double>) throws(CLIError) -> Double? {
            args.value(name) == nil ? nil : try args.number(name, default: 0, in: range)
        }
        let camera = SyntheticCamera(
            width: Int(try args.number("width", default: 640, in: 64...4096)),
            height: Int(try args.number("height", default: 400, in: 64...4096)),
            pitchDegrees: try optional("pitch", -25...25), rollDegrees: try optional("roll", -25...25),
            yawDegrees: try optional("yaw", -25...25), heightMetres: try optional("height-m", 0.31...2.99))
        let dataset = SyntheticDataset(path: out)
        try dataset.writeCommand(command(arguments))
        let blur = try args.number("blur", default: 0, in: 0...20)
        let sampler = SceneSampler(nearTwoWheelers: Int(try args.number("near-two-wheelers", default: 0, in: 0...8)))
        if args.flag("sequence") {
            return try sequence(args, frames: frames, seed: seed, camera: camera, dataset: dataset, blur: blur, sampler: sampler)
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
            let frame = SceneRenderer(options: options).render(sampler.scene(seed: frameSeed), intrinsics: setup.intrinsics, pose: setup.pose)
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
