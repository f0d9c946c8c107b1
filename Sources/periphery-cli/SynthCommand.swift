import Dispatch
import Foundation
import PeripheryGeometry
import PeripheryInference

/// `periphery synth`: labelled frames of the synthetic world.
enum SynthCommand: Command {
    static let name = "synth"
    static let summary = "Render labelled frames of the synthetic driving world (images, calibrations, labels)."
    static let help = """
        USAGE: periphery synth --frames N --seed S --out DIR [--width W --height H]
                               [--pitch DEG --yaw DEG --roll DEG --height-m M]

        Renders N independent frames of procedurally generated road scenes (deterministic in S) and
        writes DIR/images/NNNNNN.png, DIR/calibration/NNNNNN.json and DIR/labels/NNNNNN.json (the visible
        vehicles as vehicle-frame boxes with visible pixels, occlusion and truncation). The camera's
        focal length and the mount are drawn per frame unless the mount options fix them; the truth is
        always written out.

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
          --help            show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, options: ["frames", "seed", "out", "width", "height", "pitch", "yaw", "roll", "height-m"], flags: [])
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
        let sampler = SceneSampler(), interactive = isatty(2) != 0
        let start = DispatchTime.now().uptimeNanoseconds
        var vehicles = 0
        for index in 0..<frames {
            let frameSeed = seed &* 1_000_003 &+ UInt64(index)
            var random = SyntheticRandom(seed: SyntheticRandom.mix(frameSeed ^ 0x5EED_CA3E))
            let setup = try camera.draw(&random)
            var options = SceneRenderer.Options()
            options.noiseSeed = frameSeed
            let frame = SceneRenderer(options: options).render(sampler.scene(seed: frameSeed), intrinsics: setup.intrinsics, pose: setup.pose)
            try dataset.write(index: index, image: frame.image, setup: setup, labels: frame.visibleLabels)
            vehicles += frame.visibleLabels.count
            if interactive {
                let rate = Double(index + 1) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                FileHandle.standardError.write(Data(String(format: "\rframe %d/%d  %.1f frames/s", index + 1, frames, rate).utf8))
            }
        }
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        printError("\(frames) frames, \(vehicles) visible vehicles -> \(out)")
        return 0
    }
}
