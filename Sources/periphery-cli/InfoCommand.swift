import Foundation
import Periphery

/// `periphery info`: model metadata and what the runtime runs on.
enum InfoCommand: Command {
    static let name = "info"
    static let summary = "Show model metadata, parameter count, BLAS kernel, threads and CPU features."
    static let help = """
        USAGE: periphery info [--weights W]

        Prints the weights' metadata and parameter count, the OpenBLAS kernel the runtime loaded
        (and whether it was chosen from the CPU features or by OPENBLAS_CORETYPE), its self-test
        error, the default thread count and the CPU features that matter.

        OPTIONS:
          --weights W   weights file (default: Weights/safety40-synthetic.safetensors)
          --help        show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["weights"], flags: [])
        try args.expectNoPositional()
        let path = try Defaults.weightsPath(args)
        let weights = try Defaults.loadWeights(path)
        print("weights: \(path)")
        print("parameters: \(weights.parameterCount)")
        for key in weights.metadata.keys.sorted() { print("  \(key): \(weights.metadata[key] ?? "")") }
        let blas = try BLASRuntime.info()
        print("blas core: \(blas.coreName) (requested \(blas.requestedCore ?? "none"), from \(blas.source.rawValue))")
        print("blas library: \(blas.libraryPath) [\(blas.config.trimmingCharacters(in: .whitespaces))]")
        print("blas self-test relative error: \(String(format: "%.2e", blas.selfTestError))")
        if let warning = blas.slowerKernelWarning { print("warning: \(warning)") }
        print("precision: \(weights.precision) (int8 kernel on this CPU: \(Int8ISA.best?.rawValue ?? "none, needs AVX2"))")
        print(
            """
            threads: \(ProcessInfo.processInfo.activeProcessorCount) workers per layer by default \
            (OpenBLAS itself: \(try BLASRuntime.threads()) now, 1 per call once a detector runs)
            """)
        let cpu = CPUFeatures.current
        let interesting = [
            "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_vnni", "avx_vnni", "amx_int8",
            "asimd", "asimddp", "i8mm", "bf16", "sve", "sve2",
        ]
        let identity = cpu.armCore.map { String(format: "implementer 0x%02x part 0x%03x", $0.implementer, $0.part) } ?? cpu.vendor
        print("cpu: \(identity) [\(interesting.filter(cpu.flags.contains).joined(separator: " "))]")
        return 0
    }
}
