/// The arithmetic the network runs in.
public enum InferencePrecision: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The weights file's own precision.
    case auto
    /// float32 everywhere: the parity path (1e-5 relative to the PyTorch reference).
    case fp32
    /// uint8 activations × int8 weights with int32 accumulation (files from `periphery quantize`).
    case int8
    /// bfloat16 products with float32 accumulation.
    case bf16

    public var description: String { rawValue }
}

/// Why a detector cannot run at the precision asked for.
public enum PrecisionError: Error, Equatable, CustomStringConvertible {
    /// The weights file holds another precision than the one asked for.
    case fileIsNot(requested: InferencePrecision, file: InferencePrecision)
    /// This CPU lacks the instructions the precision needs.
    case unsupportedByCPU(InferencePrecision, needs: String)
    /// No kernels of this precision exist in this build.
    case notImplemented(InferencePrecision)

    public var description: String {
        switch self {
        case .fileIsNot(let requested, let file) where requested == .int8:
            "--precision \(requested): the weights file is \(file); make an INT8 file with `periphery quantize`"
        case .fileIsNot(let requested, let file):
            "--precision \(requested): the weights file is \(file); run it with --precision \(file) or auto"
        case .unsupportedByCPU(let precision, let needs): "--precision \(precision) needs \(needs), which this CPU lacks"
        case .notImplemented(let precision): "--precision \(precision) is not implemented by this runtime"
        }
    }
}
