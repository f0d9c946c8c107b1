import Foundation
import Periphery

/// `periphery bench`: per-stage and total latency of the detector.
enum BenchCommand: Command {
    static let name = "bench"
    static let summary = "Time the detector per stage (median, p95) on synthetic input."
    static let help = """
        USAGE: periphery bench [--weights W] [--frames N] [--warmup N] [--threads T] [--json] [--layers]
                               [--precision P] [--int8-kernel K]
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
          --int8-kernel K
                         auto (the CPU's fastest, default); on x86 avx2, avxvnni or avx512vnni,
                         on ARM neon, neondotprod or neoni8mm
          --preprocess C.json
                         also time the preprocessing of C.json's frame size and crop
          --help         show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, options: ["weights", "frames", "warmup", "threads", "precision", "preprocess", "int8-kernel"], flags: ["json", "layers"])
        try args.expectNoPositional()
        let frames = Int(try args.number("frames", default: 50, in: 1...100_000))
        let warmup = Int(try args.number("warmup", default: 5, in: 0...10_000))
        // Before the detector exists, so that no idle worker of its spins on a core meanwhile.
        let preprocessing = try args.value("preprocess").map {
            try DetectorBenchmark.preprocessing(
                setup: try CalibrationFile.load(path: $0), threads: try Defaults.threads(args), frames: frames, warmup: warmup)
        }
        let detector = try Detector(
            weights: try Defaults.loadWeights(try Defaults.weightsPath(args)), threads: try Defaults.threads(args),
            precision: try Defaults.precision(args), int8Kernel: try Defaults.int8Kernel(args))
        if let warning = detector.blas.slowerKernelWarning { printError("warning: \(warning)") }
        var report = try DetectorBenchmark.run(detector, frames: frames, warmup: warmup, layers: args.flag("layers"))
        report.preprocess = preprocessing
        if args.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(text(report))
        }
        return 0
    }

    /// The report as a table for a person.
    static func text(_ r: DetectorBenchmark.Report) -> String {
        func name(_ s: String, _ width: Int = 9) -> String { s.padding(toLength: width, withPad: " ", startingAt: 0) }
        var lines = ["frames \(r.frames) (after \(r.warmup) warm-up), threads \(r.threads), \(r.precision) on \(r.kernel)"]
        if let p = r.preprocess {
            lines.append(
                String(
                    format: "  preprocess median %8.2f ms   p95 %8.2f ms   (%@ frame, crop %@, timed alone)", p.medianMs, p.p95Ms, p.frame, p.crop))
        }
        for stage in ["backbone", "gather", "head", "decode"] {
            guard let s = r.stages[stage] else { continue }
            lines.append(String(format: "  %@ median %8.2f ms   p95 %8.2f ms", name(stage), s.medianMs, s.p95Ms))
        }
        lines.append(String(format: "  %@ median %8.2f ms   p95 %8.2f ms   %.1f frames/s", name("total"), r.medianMs, r.p95Ms, r.fps))
        if let layers = r.layers {
            lines.append("\n  layer                                  median ms   GFLOP/s   share")
            for layer in layers {
                lines.append(
                    String(
                        format: "  %@ %9.3f %9.1f %6.1f%%", name(layer.name, 38), layer.medianMs, layer.gflopsPerSecond, 100 * layer.share))
            }
        }
        return lines.joined(separator: "\n")
    }
}
