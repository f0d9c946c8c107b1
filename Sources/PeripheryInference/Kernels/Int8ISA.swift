import CInt8Kernels

/// The instruction set the INT8 convolutions run on, chosen from the CPU's features at load. The
/// raw value is its name in the CLI's output and in `bench --json`.
public enum Int8ISA: String, Sendable, CaseIterable {
    /// Plain C: the reference the others are tested against.
    case naive
    /// AVX2: vpmaddubsw (vpdpbusd emulated) for layers with 6- or 7-bit weights, vpmaddwd on
    /// widened values for wider ones (full-range int8 weights would saturate vpmaddubsw).
    case avx2
    /// vpdpbusd on 256-bit registers.
    case avxVNNI = "avx-vnni"
    /// vpdpbusd on 512-bit registers.
    case avx512VNNI = "avx512-vnni"
    /// ARMv8.0 Advanced SIMD, which every aarch64 CPU has.
    case neon
    /// Advanced SIMD with the dot product instructions (sdot, ARMv8.2's optional DotProd).
    case neonDotProd = "neon-dotprod"
    /// Advanced SIMD with the int8 matrix multiply instructions (usdot, ARMv8.6's I8MM).
    case neonI8MM = "neon-i8mm"

    var kernel: pq_isa {
        switch self {
        case .naive: PQ_ISA_NAIVE
        case .avx2: PQ_ISA_AVX2
        case .avxVNNI: PQ_ISA_AVXVNNI
        case .avx512VNNI: PQ_ISA_AVX512VNNI
        case .neon: PQ_ISA_NEON
        case .neonDotProd: PQ_ISA_NEON_DOTPROD
        case .neonI8MM: PQ_ISA_NEON_I8MM
        }
    }

    /// The CPU features this path needs, as Linux's /proc/cpuinfo names them: x86's `flags`,
    /// aarch64's `Features`.
    public var requiredFlags: [String] {
        switch self {
        case .naive: []
        case .avx2: ["avx2", "fma"]
        case .avxVNNI: ["avx2", "fma", "avx_vnni"]
        case .avx512VNNI: ["avx512f", "avx512bw", "avx512vl", "avx512_vnni"]
        case .neon: ["asimd"]
        case .neonDotProd: ["asimd", "asimddp"]
        case .neonI8MM: ["asimd", "i8mm"]
        }
    }

    /// Whether this build contains the path's kernel: each ISA's C file is compiled only for its
    /// own architecture.
    var isCompiled: Bool { pq_isa_compiled(kernel) != 0 }

    /// Whether a CPU with `features` can run this path in this build.
    func runs(on features: CPUFeatures) -> Bool { isCompiled && requiredFlags.allSatisfy(features.flags.contains) }

    /// The name `--int8-kernel` takes: the raw value without its hyphen (`avxvnni`, `neondotprod`).
    public var optionName: String { rawValue.replacingOccurrences(of: "-", with: "") }

    /// The path named `name`, as `--int8-kernel` or the raw value spells it (`avxvnni`, `avx-vnni`).
    public init?(optionName name: String) {
        guard let isa = Self.allCases.first(where: { $0.optionName == name || $0.rawValue == name }) else { return nil }
        self = isa
    }

    /// The fastest path for `features` among those `compiled` (this build's, by default); `nil`
    /// without AVX2 on x86 (the naive path is for tests only). x86 and ARM feature names are
    /// disjoint, so one order serves both.
    static func best(for features: CPUFeatures, compiled: (Int8ISA) -> Bool = \.isCompiled) -> Int8ISA? {
        [.avx512VNNI, .avxVNNI, .avx2, .neonI8MM, .neonDotProd, .neon].first {
            compiled($0) && $0.requiredFlags.allSatisfy(features.flags.contains)
        }
    }

    /// The instruction set the INT8 convolutions run on here, or `nil` on an x86 CPU without AVX2,
    /// which cannot run INT8.
    public static var best: Int8ISA? { best(for: .current) }
}
