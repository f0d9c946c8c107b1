/// The kernels a `Detector`'s convolutions run on. The description is the name the CLI prints and
/// `bench --json` writes: `openblas-` and the core for FP32 (`openblas-Haswell`), the instruction
/// set for INT8 (`avx512-vnni`).
public enum ConvolutionKernel: Sendable, Hashable, CustomStringConvertible {
    /// FP32: OpenBLAS's sgemm on the kernels of this core, as OpenBLAS names it (`Haswell`, `SkylakeX`, `Zen`).
    case openBLAS(core: String)
    /// INT8: the package's kernels on this instruction set.
    case int8(Int8ISA)

    public var description: String {
        switch self {
        case .openBLAS(let core): "openblas-" + core
        case .int8(let isa): isa.rawValue
        }
    }
}
