import Foundation
import Periphery

/// Defaults the commands share: where the bundled weights are, and the reference camera.
enum Defaults {
    /// The bundled weights file, relative to the repository root.
    static let weightsFile = "Weights/safety40-synthetic.safetensors"
    /// The bundled weights quantized by `periphery quantize`, the default of `--precision int8`.
    static let int8WeightsFile = "Weights/safety40-synthetic-int8.safetensors"

    /// `--weights` if given, else the bundled file (the INT8 one under `--precision int8`) found
    /// from the working directory or from the executable's location inside `.build/`.
    static func weightsPath(_ arguments: Arguments) throws(CLIError) -> String {
        if let path = arguments.value("weights") { return path }
        let weightsFile = arguments.value("precision") == InferencePrecision.int8.rawValue ? int8WeightsFile : weightsFile
        var candidates = [weightsFile]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var directory = executable.deletingLastPathComponent()
            for _ in 0..<4 {
                directory = directory.deletingLastPathComponent()
                candidates.append(directory.appendingPathComponent(weightsFile).path)
            }
        }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw CLIError("no weights given and \(weightsFile) not found; pass --weights FILE")
        }
        return found
    }

    /// Loads weights, warning on stderr when they are not a trained network.
    static func loadWeights(_ path: String) throws -> Safety40Weights {
        let weights = try Safety40Weights(path: path)
        switch weights.provenance.training {
        case .untrained: printError("note: \(path) is an untrained random initialisation; its outputs are not detections of real vehicles")
        case .synthetic: printError("note: \(path) was trained on synthetic scenes only; real cameras need the real Safety40 checkpoint")
        case .trained: break
        }
        return weights
    }

    /// Parses `--precision` (default `auto`: the weights file's own).
    static func precision(_ arguments: Arguments) throws(CLIError) -> InferencePrecision {
        guard let value = arguments.value("precision") else { return .auto }
        guard let precision = InferencePrecision(rawValue: value) else {
            throw CLIError("--precision \(value): expected one of \(InferencePrecision.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return precision
    }

    /// Help text of `--precision` and `--int8-kernel`, shared by the commands that run the network.
    static let precisionHelp = """
          --precision P          auto (the weights file's own, default), fp32 or int8 (a file from
                                 `periphery quantize`; default weights Weights/safety40-synthetic-int8.safetensors)
          --int8-kernel K        auto (the CPU's fastest, default); on x86 avx2, avxvnni or avx512vnni, on
                                 ARM neon, neondotprod or neoni8mm: the instruction set of the INT8
                                 convolutions (an error if the CPU lacks it)
        """

    /// The values `--int8-kernel` takes besides `auto`.
    static let int8Kernels: [Int8ISA] = [.avx2, .avxVNNI, .avx512VNNI, .neon, .neonDotProd, .neonI8MM]

    /// Parses `--int8-kernel` (default `auto`: nil, the CPU's fastest).
    static func int8Kernel(_ arguments: Arguments) throws(CLIError) -> Int8ISA? {
        guard let value = arguments.value("int8-kernel"), value != "auto" else { return nil }
        guard let isa = Int8ISA(optionName: value), int8Kernels.contains(isa) else {
            throw CLIError("--int8-kernel \(value): expected one of auto, \(int8Kernels.map(\.optionName).joined(separator: ", "))")
        }
        return isa
    }

    /// Parses `--threads`, defaulting to all cores.
    static func threads(_ arguments: Arguments) throws(CLIError) -> Int {
        Int(try arguments.number("threads", default: Double(ProcessInfo.processInfo.activeProcessorCount), in: 1...256))
    }

    /// The engine `eval` and `eval-real` score with: `--threads`, `--precision` and `--int8-kernel`,
    /// decoding at the operating point `threshold` or below (0.5), so that the matcher sees every
    /// candidate it counts.
    static func evaluationEngine(_ arguments: Arguments, weights: Safety40Weights, threshold: Float) throws -> PerceptionEngine {
        try PerceptionEngine(
            weights: weights, threads: try threads(arguments),
            settings: DecodeSettings(scoreThreshold: min(threshold, 0.5), rejectImplausible: true),
            precision: try precision(arguments), int8Kernel: try int8Kernel(arguments))
    }
}
