import Foundation
import Periphery

/// `periphery quantize`: post-training static INT8 quantization of FP32 weights.
enum QuantizeCommand: Command {
    static let name = "quantize"
    static let summary = "Quantize FP32 weights to INT8 with calibration frames (post-training, static)."
    static let help = """
        USAGE: periphery quantize --weights FP32.safetensors --data DIR [--frames N] [--calibration C.json] --out OUT.safetensors

        Runs the FP32 network on N frames of DIR (the real preprocessing and each frame's own
        calibration) and writes INT8 weights: int8 per output channel (6-bit by default, −31…31, which
        AVX2 runs fastest), uint8 activations per tensor
        with the range of least squared error over those frames (docs/guides/weights.md). DIR is a dataset
        written by `periphery synth` (images/, calibration/) or a drive directory (frames in name
        order; DIR/calibration.json or --calibration). Frames are taken evenly spread over DIR.

        OPTIONS:
          --weights W           FP32 weights (default: Weights/safety40-synthetic.safetensors)
          --data DIR            calibration frames
          --frames N            how many (default 200, or all if DIR has fewer)
          --calibration C.json  camera and mount of a drive directory (default DIR/calibration.json)
          --out OUT             INT8 weights file (written atomically)
          --weight-bits B       6 (default: weights in −31…31), 7 (−63…63; AVX2 then runs about 1.2x
                                slower) or 8 (−127…127; AVX2 then runs its half-rate vpmaddwd kernel)
          --threads T           worker threads (default: all cores)
          --help                show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["weights", "data", "frames", "calibration", "out", "threads", "weight-bits"], flags: [])
        try args.expectNoPositional()
        let data = try args.required("data"), out = try args.required("out")
        let wanted = Int(try args.number("frames", default: 200, in: 1...100_000))
        let weightsPath = try Defaults.weightsPath(args)
        let weights = try Defaults.loadWeights(weightsPath)
        let threads = try Defaults.threads(args)
        let bitsText = args.value("weight-bits") ?? "6"
        guard let bits = Int(bitsText).flatMap(WeightBits.init(rawValue:)) else { throw CLIError("--weight-bits \(bitsText): expected 6, 7 or 8") }
        let quantizer = try Safety40Quantizer(weights: weights, threads: threads, bits: bits)
        let preprocessor = Preprocessor(threads: threads)
        let frames = try CalibrationFrames(directory: data, calibration: args.value("calibration"))
        let chosen = frames.evenlySpread(wanted)
        for (n, index) in chosen.enumerated() {
            let (image, setup) = try frames.read(index)
            let calibration = CameraCalibration(setup)
            guard image.width == setup.intrinsics.width, image.height == setup.intrinsics.height else {
                throw CLIError(
                    """
                    \(frames.name(index)): \(image.width)x\(image.height) \
                    but its calibration describes \(setup.intrinsics.width)x\(setup.intrinsics.height)
                    """)
            }
            let input = preprocessor.process(try FramePixels(image), crop: calibration.crop)
            try quantizer.add(image: input, lut: ProjectionLUT(calibration: calibration))
            if (n + 1) % 50 == 0 { printError("calibration: \(n + 1)/\(chosen.count) frames") }
        }
        let source = URL(fileURLWithPath: weightsPath).lastPathComponent
        var writer = quantizer.quantize(calibration: "\(chosen.count) frames of \(frames.kind) \(data)")
        writer.metadata["quantized_from"] = source
        // The source's scores describe the FP32 network, not this one.
        for key in ["evaluation", "validation"] {
            if let value = writer.metadata.removeValue(forKey: key) { writer.metadata["source_" + key] = value }
        }
        do {
            try writer.write(to: out)
        } catch {
            throw CLIError("\(out): cannot write (\(error.localizedDescription))")
        }
        // Read back through the strict loader, so that a file this command writes always loads.
        _ = try Safety40Weights(path: out)
        printError("int8 weights (\(chosen.count) calibration frames) -> \(out)")
        return 0
    }
}
