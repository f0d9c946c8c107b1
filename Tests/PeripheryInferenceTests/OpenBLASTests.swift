import PeripheryTestSupport
import Testing

@testable import PeripheryGeometry
@testable import PeripheryInference

@Suite struct OpenBLASTests {
    static let zen3 = """
        processor\t: 0
        vendor_id\t: AuthenticAMD
        flags\t\t: fpu sse sse2 ssse3 sse4_1 sse4_2 avx f16c fma avx2 bmi2
        processor\t: 1
        vendor_id\t: AuthenticAMD
        flags\t\t: fpu
        """

    @Test func parsesTheFirstProcessorOfCpuinfo() {
        let features = CPUFeatures(cpuinfo: Self.zen3)
        #expect(features.vendor == "AuthenticAMD")
        #expect(features.flags.contains("avx2") && features.flags.contains("fma") && !features.flags.contains("avx512f"))
    }

    @Test(
        arguments: [
            ("GenuineIntel", "sse3 avx avx2 fma avx512f avx512cd avx512bw avx512dq avx512vl", "SkylakeX"),
            ("AuthenticAMD", "sse3 avx avx2 fma avx512f avx512cd avx512bw avx512dq avx512vl", "SkylakeX"),
            ("AuthenticAMD", "sse3 avx avx2 fma", "Zen"),
            ("GenuineIntel", "sse3 avx avx2 fma", "Haswell"),
            ("GenuineIntel", "sse3 avx avx512f", "Sandybridge"),
            ("GenuineIntel", "sse3 ssse3", nil),
        ] as [(String, String, String?)])
    func choosesTheFastestCorrectKernel(_ vendor: String, _ flags: String, _ expected: String?) {
        let features = CPUFeatures(vendor: vendor, flags: Set(flags.split(separator: " ").map(String.init)))
        #expect(features.openBLASCoreType == expected)
    }

    /// The library loads, runs the kernel it chose for this CPU (never the generic fallback when a
    /// better one exists), and passed its sgemm self-test.
    @Test func loadsTheChosenKernelAndPassesItsSelfTest() throws {
        let info = try BLASRuntime.info()
        #expect(info.selfTestError <= 1e-5)
        #expect(try BLASRuntime.threads() >= 1)
        if info.source == .cpuFeatures, let requested = info.requestedCore {
            #expect(info.coreName.lowercased() == requested.lowercased())
        }
        if CPUFeatures.current.openBLASCoreType != nil {
            #expect(info.coreName != "Prescott")
        }
    }

    /// The library is looked for in the multiarch directory of the architecture this test was
    /// compiled for.
    @Test func looksInThisMachinesMultiarchDirectory() {
        #if arch(arm64)
        #expect(OpenBLAS.multiarchTriplet == "aarch64-linux-gnu")
        #elseif arch(x86_64)
        #expect(OpenBLAS.multiarchTriplet == "x86_64-linux-gnu")
        #endif
        #expect(OpenBLAS.candidates.last == "/usr/lib/\(OpenBLAS.multiarchTriplet)/libopenblas.so.0")
    }

    /// ARM core names are not ranked against x86 kernel families: no warning, whatever this CPU is.
    @Test(arguments: ["ARMV8", "NEOVERSEN1", "cortexa53"])
    func armCoreTypesNeverWarn(_ core: String) {
        let info = BLASInfo(coreName: core, requestedCore: core, source: .environment, config: "", libraryPath: "", selfTestError: 0)
        #expect(info.slowerKernelWarning == nil)
    }

    @Test func sgemmMatchesNaiveProductOnOddShapes() throws {
        let blas = try OpenBLAS.load()
        var rng = SeededRandom(seed: 77)
        for _ in 0..<20 {
            let m = rng.integer(1...70), n = rng.integer(1...70), k = rng.integer(1...90)
            let a = rng.floats(m * k), b = rng.floats(k * n)
            var c = rng.floats(m * n)
            let c0 = c
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    c.withUnsafeMutableBufferPointer { c in
                        blas.sgemm(m: m, n: n, k: k, a: a.baseAddress!, lda: k, b: b.baseAddress!, ldb: n, beta: 0.5, c: c.baseAddress!, ldc: n)
                    }
                }
            }
            var expected = [Double](repeating: 0, count: m * n)
            for i in 0..<m {
                for j in 0..<n {
                    var s = 0.5 * Double(c0[i * n + j])
                    for p in 0..<k { s += Double(a[i * k + p]) * Double(b[p * n + j]) }
                    expected[i * n + j] = s
                }
            }
            #expect(relativeError(c, expected) <= 1e-5, "\(m)×\(n)×\(k)")
        }
    }
}
