import Dispatch
import Foundation
import Periphery

/// `periphery bench`: per-stage and total latency of the detector.
enum BenchCommand: Command {
    static let name = "bench"
    static let summary = "Time the detector per stage (median, p95) on synthetic input."
    static let help = """
        USAGE: periphery bench [--weights W] [--frames N] [--warmup N] [--threads T] [--json] [--layers]
                               [--preprocess C.json]

        Runs the detector on a synthetic normalised image (uniform in [-2, 2], fixed seed) with the
        reference calibration (comma K, pitch -3.659 deg, height 1.20 m, forward 1.65 m), discards
        the warm-up frames, and reports median and p95 per stage (backbone, gather, head, decode)
        and in total, frames per second over wall-clock time, the BLAS kernel and threads.
        Percentiles use index round((n-1)·p) of the sorted times. Preprocessing is excluded unless
        --preprocess times it first, on its own: frames of the camera in C.json (random pixels)
        through that camera's focal-matched crop, on the same number of threads.

        OPTIONS:
          --weights W    weights file (default: Weights/safety40-synthetic.safetensors)
          --frames N     timed frames (default 50)
          --warmup N     discarded frames first (default 5)
          --threads T    worker threads (default: all cores)
          --json         print one JSON object with median_ms, p95_ms, stages, threads, blas_core
          --layers       also print a per-layer profile (median ms, GFLOP/s, share of the frame)
          --precision P  auto (the file's own, default), fp32 or int8 (default weights then
                         Weights/safety40-synthetic-int8.safetensors)
          --preprocess C.json
                         also time the preprocessing of C.json's frame size and crop
          --help         show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["weights", "frames", "warmup", "threads", "precision", "preprocess"], flags: ["json", "layers"])
        try args.expectNoPositional()
        let frames = Int(try args.number("frames", default: 50, in: 1...100_000))
        let warmup = Int(try args.number("warmup", default: 5, in: 0...10_000))
        // Before the detector exists, so that no idle worker of its spins on a core meanwhile.
        let preprocessing = try args.value("preprocess").map {
            try timePreprocessing(
                setup: try CalibrationFile.load(path: $0), threads: try Defaults.threads(args), frames: frames, warmup: warmup)
        }
        let detector = try Detector(
            weights: try Defaults.loadWeights(try Defaults.weightsPath(args)), threads: try Defaults.threads(args),
            precision: try Defaults.precision(args))
        if let warning = detector.blas.slowerKernelWarning { printError("warning: \(warning)") }
        let lut = ProjectionLUT(calibration: CameraCalibration(try Defaults.referenceSetup()))
        var state: UInt64 = 20_260_831
        let image = (0..<(3 * Safety40.inputHeight * Safety40.inputWidth)).map { _ in
            Float(next(&state) >> 40) / Float(1 << 24) * 4 - 2
        }
        for _ in 0..<warmup { _ = try detector.detect(image: image, lut: lut) }
        detector.profilesLayers = args.flag("layers")
        var layers: [[LayerTiming]] = []
        var timings: [DetectorTimings] = []
        timings.reserveCapacity(frames)
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<frames {
            timings.append(try detector.detect(image: image, lut: lut).timings)
            if detector.profilesLayers { layers.append(detector.layerTimings) }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9

        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[Int((Double(sorted.count - 1) * p).rounded())]
        }
        let stages: [(String, KeyPath<DetectorTimings, Double>)] = [
            ("backbone", \.backbone), ("gather", \.gather), ("head", \.head), ("decode", \.decode),
        ]
        let totals = timings.map(\.total)
        let fps = Double(frames) / wall
        if args.flag("json") {
            let stageJSON = stages.map { name, path in
                let values = timings.map { $0[keyPath: path] }
                return "\"\(name)\": {\"median_ms\": \(rounded(percentile(values, 0.5))), \"p95_ms\": \(rounded(percentile(values, 0.95)))}"
            }.joined(separator: ", ")
            let preprocessJSON = preprocessing.map {
                """
                    , \"preprocess\": {\"median_ms\": \(rounded(percentile($0.milliseconds, 0.5))), \"p95_ms\": \(rounded(percentile($0.milliseconds, 0.95))), \
                    \"frame\": \"\($0.frame)\", \"crop\": \"\($0.crop)\"}
                    """
            } ?? ""
            print("""
                {\"median_ms\": \(rounded(percentile(totals, 0.5))), \"p95_ms\": \(rounded(percentile(totals, 0.95))), \"fps\": \(rounded(fps)), \
                \"frames\": \(frames), \"stages\": {\(stageJSON)}\(preprocessJSON), \
                \"threads\": \(detector.threads), \"blas_core\": \"\(detector.blas.coreName)\", \
                \"precision\": \"\(detector.precision)\", \"kernel\": \"\(detector.kernel)\"}
                """)
        } else {
            print("frames \(frames) (after \(warmup) warm-up), threads \(detector.threads), \(detector.precision) on \(detector.kernel)")
            if let preprocessing {
                let values = preprocessing.milliseconds
                print(String(
                    format: "  preprocess median %8.2f ms   p95 %8.2f ms   (%@ frame, crop %@, timed alone)",
                    percentile(values, 0.5), percentile(values, 0.95), preprocessing.frame, preprocessing.crop))
            }
            for (name, path) in stages {
                let values = timings.map { $0[keyPath: path] }
                print(String(format: "  %@ median %8.2f ms   p95 %8.2f ms",
                    name.padding(toLength: 9, withPad: " ", startingAt: 0), percentile(values, 0.5), percentile(values, 0.95)))
            }
            print(String(format: "  %@ median %8.2f ms   p95 %8.2f ms   %.1f frames/s",
                "total".padding(toLength: 9, withPad: " ", startingAt: 0), percentile(totals, 0.5), percentile(totals, 0.95), fps))
            if let first = layers.first {
                let frame = percentile(totals, 0.5)
                print("\n  layer                                  median ms   GFLOP/s   share")
                for (i, layer) in first.enumerated() {
                    let ms = percentile(layers.map { $0[i].milliseconds }, 0.5)
                    let gflops = ms > 0 ? Double(layer.flops) / ms / 1e6 : 0
                    print(String(format: "  %@ %9.3f %9.1f %6.1f%%",
                        layer.name.padding(toLength: 38, withPad: " ", startingAt: 0), ms, gflops, 100 * ms / frame))
                }
            }
        }
        return 0
    }

    static func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    /// The benchmark's fixed-seed inputs: one step of a 64-bit linear congruential generator.
    static func next(_ state: inout UInt64) -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }

    /// Per-frame milliseconds of `Preprocessor.process` on frames of `setup`'s size with its crop.
    static func timePreprocessing(
        setup: CameraSetup, threads: Int, frames: Int, warmup: Int
    ) throws -> (milliseconds: [Double], frame: String, crop: String) {
        let k = setup.intrinsics
        let crop = CameraCalibration(setup).crop
        var state: UInt64 = 20_261_202
        let bytes = (0..<(k.width * k.height * 3)).map { _ in UInt8(truncatingIfNeeded: next(&state) >> 56) }
        let pixels = try FramePixels(width: k.width, height: k.height, rowStride: k.width * 3, format: .rgb8, bytes: bytes)
        let preprocessor = Preprocessor(threads: threads)
        for _ in 0..<warmup { preprocessor.process(pixels, crop: crop) }
        let milliseconds = (0..<frames).map { _ -> Double in
            let start = DispatchTime.now().uptimeNanoseconds
            preprocessor.process(pixels, crop: crop)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        return (milliseconds, "\(k.width)x\(k.height)", "\(crop.width)x\(crop.height) to \(crop.scaledWidth)x\(crop.scaledHeight)")
    }
}
