import Testing

@testable import PeripheryInference

/// Which INT8 instruction set a CPU runs, and the names `--int8-kernel` takes.
@Suite struct Int8ISATests {
    static func features(_ flags: String) -> CPUFeatures {
        CPUFeatures(vendor: "", flags: Set(flags.split(separator: " ").map(String.init)))
    }

    /// The fastest path whose features the CPU has, as if every kernel were built: on ARM I8MM,
    /// then the dot product, then plain NEON; on x86 AVX-512 VNNI, AVX-VNNI, then AVX2.
    @Test(
        arguments: [
            ("avx avx2 fma avx512f avx512bw avx512vl avx512_vnni avx_vnni", .avx512VNNI),
            ("avx avx2 fma avx_vnni", .avxVNNI),
            ("avx avx2 fma", .avx2),
            ("avx fma", nil),
            // Neoverse-V1 (Graviton3), Cortex-A76 (Raspberry Pi 5), Cortex-A53 (Raspberry Pi 3).
            ("fp asimd asimddp sve i8mm bf16", .neonI8MM),
            ("fp asimd evtstrm crc32 cpuid asimdrdm lrcpc dcpop asimddp", .neonDotProd),
            ("fp asimd evtstrm crc32 cpuid", .neon),
            ("fp", nil),
        ] as [(String, Int8ISA?)])
    func picksTheFastestPathTheCPUHas(_ flags: String, _ expected: Int8ISA?) {
        #expect(Int8ISA.best(for: Self.features(flags), compiled: { _ in true }) == expected)
    }

    /// A path this build lacks is never chosen, whatever the CPU has.
    @Test func skipsPathsThisBuildLacks() {
        let v1 = CPUFeatures(cpuinfo: CPUFeaturesTests.neoverseV1)
        #expect(Int8ISA.best(for: v1, compiled: { $0 != .neonI8MM }) == .neonDotProd)
        #expect(Int8ISA.best(for: v1, compiled: { $0 == .neon }) == .neon)
        let everything = Self.features(Int8ISA.allCases.flatMap(\.requiredFlags).joined(separator: " "))
        for isa in Int8ISA.allCases {
            #expect(isa.runs(on: everything) == isa.isCompiled, "\(isa)")
        }
        #expect(Int8ISA.naive.isCompiled)
    }

    @Test func optionNamesRoundTrip() {
        for isa in Int8ISA.allCases {
            #expect(Int8ISA(optionName: isa.optionName) == isa)
            #expect(Int8ISA(optionName: isa.rawValue) == isa)
        }
        #expect(Int8ISA.neonDotProd.optionName == "neondotprod" && Int8ISA.neonI8MM.optionName == "neoni8mm")
        #expect(Int8ISA(optionName: "neon-dotprod") == .neonDotProd && Int8ISA(optionName: "neon") == .neon)
        #expect(Int8ISA(optionName: "sve") == nil)
        #expect("\(ConvolutionKernel.int8(.neonI8MM))" == "neon-i8mm")
    }
}
