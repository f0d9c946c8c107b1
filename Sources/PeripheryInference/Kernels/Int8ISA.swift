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

    var kernel: pq_isa {
        switch self {
        case .naive: PQ_ISA_NAIVE
        case .avx2: PQ_ISA_AVX2
        case .avxVNNI: PQ_ISA_AVXVNNI
        case .avx512VNNI: PQ_ISA_AVX512VNNI
        }
    }

    /// The /proc/cpuinfo flags this path needs.
    public var requiredFlags: [String] {
        switch self {
        case .naive: []
        case .avx2: ["avx2", "fma"]
        case .avxVNNI: ["avx2", "fma", "avx_vnni"]
        case .avx512VNNI: ["avx512f", "avx512bw", "avx512vl", "avx512_vnni"]
        }
    }

    /// Whether a CPU with `features` can run this path.
    func runs(on features: CPUFeatures) -> Bool { requiredFlags.allSatisfy(features.flags.contains) }

    /// The name `--int8-kernel` takes: the raw value without its hyphen (`avxvnni`, `avx512vnni`).
    public var optionName: String { rawValue.replacingOccurrences(of: "-", with: "") }

    /// The path named `name`, as `--int8-kernel` or the raw value spells it (`avxvnni`, `avx-vnni`).
    public init?(optionName name: String) {
        guard let isa = Self.allCases.first(where: { $0.optionName == name || $0.rawValue == name }) else { return nil }
        self = isa
    }

    /// The fastest path for `features`; `nil` without AVX2 (the naive path is for tests only).
    static func best(for features: CPUFeatures) -> Int8ISA? {
        [.avx512VNNI, .avxVNNI, .avx2].first { $0.runs(on: features) }
    }

    /// The instruction set the INT8 convolutions run on here, or `nil` on a CPU without AVX2,
    /// which cannot run INT8.
    public static var best: Int8ISA? { best(for: .current) }
}
