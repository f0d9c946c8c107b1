/// The kernels a `Detector`'s convolutions run on. The description is the name the CLI prints and
/// `bench --json` writes: `openblas-` and the core for FP32 (`openblas-Haswell`), the instruction
/// set for INT8 (`avx512-vnni`), and on AVX2 which of its two kernels ran (`avx2-maddubs`).
public enum ConvolutionKernel: Sendable, Hashable, CustomStringConvertible {
    /// FP32: OpenBLAS's sgemm on the kernels of this core, as OpenBLAS names it (`Haswell`, `SkylakeX`, `Zen`).
    case openBLAS(core: String)
    /// INT8: the package's kernels on this instruction set (AVX-VNNI, AVX-512 VNNI, naive).
    case int8(Int8ISA)
    /// INT8 on AVX2: `maddubs` of the `layers` convolutions have 7-bit weights and run vpmaddubsw,
    /// the others the exact but half-rate vpmaddwd kernel.
    case int8AVX2(maddubs: Int, layers: Int)

    public var description: String {
        switch self {
        case .openBLAS(let core): "openblas-" + core
        case .int8(let isa): isa.rawValue
        case .int8AVX2(let maddubs, let layers) where maddubs == layers: "avx2-maddubs"
        case .int8AVX2(let maddubs, _) where maddubs == 0: "avx2-maddwd"
        case .int8AVX2(let maddubs, let layers): "avx2-maddubs-\(maddubs)-of-\(layers)"
        }
    }
}
