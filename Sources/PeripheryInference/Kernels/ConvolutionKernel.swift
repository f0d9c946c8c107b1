/// The kernels a `Detector`'s convolutions run on. The description is the name the CLI prints and
/// `bench --json` writes: `openblas-` and the core for FP32 (`openblas-Haswell`), the instruction
/// set for INT8 (`avx512-vnni`, `neon-dotprod`), and on AVX2 which of its kernels ran (`avx2-maddubs6`).
public enum ConvolutionKernel: Sendable, Hashable, CustomStringConvertible {
    /// FP32: OpenBLAS's sgemm on the kernels of this core, as OpenBLAS names it (`Haswell`, `SkylakeX`, `Zen`).
    case openBLAS(core: String)
    /// INT8: the package's kernels on this instruction set (AVX-VNNI, AVX-512 VNNI, NEON, naive).
    case int8(Int8ISA)
    /// INT8 on AVX2, with how many convolutions run each kernel: `maddubs6` (6-bit weights, two
    /// vpmaddubsw products per vpmaddwd), `maddubs` (7-bit, one) and `maddwd` (wider weights,
    /// widened to 16 bits, half the rate).
    case int8AVX2(maddubs6: Int, maddubs: Int, maddwd: Int)

    public var description: String {
        switch self {
        case .openBLAS(let core): "openblas-" + core
        case .int8(let isa): isa.rawValue
        case .int8AVX2(let six, let seven, let wide):
            switch (six, seven, wide) {
            case (_, 0, 0): "avx2-maddubs6"
            case (0, _, 0): "avx2-maddubs"
            case (0, 0, _): "avx2-maddwd"
            default: "avx2-mixed-maddubs6-\(six)-maddubs-\(seven)-maddwd-\(wide)"
            }
        }
    }
}
