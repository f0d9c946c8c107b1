import Foundation

/// The instruction-set features of this CPU that decide which kernels are correct and fast.
package struct CPUFeatures: Sendable, Hashable {
    /// An aarch64 core's identity from its MIDR_EL1 register, as /proc/cpuinfo shows it.
    package struct ARMCore: Sendable, Hashable {
        /// `CPU implementer` (0x41 for Arm Ltd's own designs).
        package let implementer: Int
        /// `CPU part` (0xd0b for Cortex-A76, 0xd40 for Neoverse-V1, …).
        package let part: Int

        /// Creates a core from its implementer and part numbers.
        package init(implementer: Int, part: Int) {
            self.implementer = implementer
            self.part = part
        }
    }

    /// CPU vendor string (`GenuineIntel`, `AuthenticAMD`, …), empty if unknown or on ARM.
    package let vendor: String
    /// Features as Linux names them in /proc/cpuinfo: x86's `flags` (`avx2`, `fma`, `avx512f`, …)
    /// or aarch64's `Features` (`asimd`, `asimddp`, `i8mm`, `sve`, …).
    package let flags: Set<String>
    /// The first processor's core on aarch64, `nil` elsewhere or when /proc/cpuinfo does not say.
    package let armCore: ARMCore?

    /// This CPU's features. On x86 they come from /proc/cpuinfo, which lists only features the OS
    /// has enabled, so a flag seen there is safe to use. On aarch64 they come from the auxiliary
    /// vector (`getauxval(AT_HWCAP)`, `AT_HWCAP2`), which is what the kernel, or qemu-user for the
    /// CPU it emulates, enables for this process; qemu-user may show the host's /proc/cpuinfo.
    package static let current: CPUFeatures = {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let parsed = CPUFeatures(cpuinfo: text)
        #if arch(arm64)
        guard let hwcap = AuxiliaryVector.hwcaps() else { return parsed }
        return CPUFeatures(vendor: parsed.vendor, flags: armFeatures(hwcap: hwcap.hwcap, hwcap2: hwcap.hwcap2), armCore: parsed.armCore)
        #else
        return parsed
        #endif
    }()

    /// Parses the first processor entry of a `/proc/cpuinfo` text, x86's or aarch64's.
    package init(cpuinfo: String) {
        var vendor = "", flags: Set<String> = [], implementer: Int?, part: Int?
        for line in cpuinfo.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "vendor_id" where vendor.isEmpty: vendor = parts[1]
            case "flags" where flags.isEmpty, "Features" where flags.isEmpty:
                flags = Set(parts[1].split(separator: " ").map(String.init))
            case "CPU implementer" where implementer == nil: implementer = Self.hexadecimal(parts[1])
            case "CPU part" where part == nil: part = Self.hexadecimal(parts[1])
            default: break
            }
        }
        let core = implementer.flatMap { implementer in part.map { ARMCore(implementer: implementer, part: $0) } }
        self.init(vendor: vendor, flags: flags, armCore: core)
    }

    /// Creates features from a vendor, flags and, on aarch64, the core.
    package init(vendor: String, flags: Set<String>, armCore: ARMCore? = nil) {
        self.vendor = vendor
        self.flags = flags
        self.armCore = armCore
    }

    /// `0x41` → 65, as /proc/cpuinfo writes the MIDR fields.
    private static func hexadecimal(_ text: String) -> Int? {
        guard text.hasPrefix("0x") else { return nil }
        return Int(text.dropFirst(2), radix: 16)
    }

    /// The names of the aarch64 hwcap bits set in `hwcap` and `hwcap2`, as /proc/cpuinfo's
    /// `Features` line spells them.
    package static func armFeatures(hwcap: UInt64, hwcap2: UInt64) -> Set<String> {
        func names(_ table: [String], _ bits: UInt64) -> [String] {
            table.indices.filter { bits & (1 << UInt64($0)) != 0 }.map { table[$0] }
        }
        return Set(names(hwcapNames, hwcap) + names(hwcap2Names, hwcap2))
    }

    /// `AT_HWCAP` bit i is named `hwcapNames[i]`: the `HWCAP_*` bits of Linux's
    /// arch/arm64/include/uapi/asm/hwcap.h, named as arch/arm64/kernel/cpuinfo.c prints them.
    static let hwcapNames = [
        "fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32", "atomics", "fphp", "asimdhp", "cpuid", "asimdrdm",
        "jscvt", "fcma", "lrcpc", "dcpop", "sha3", "sm3", "sm4", "asimddp", "sha512", "sve", "asimdfhm", "dit", "uscat",
        "ilrcpc", "flagm", "ssbs", "sb", "paca", "pacg",
    ]

    /// `AT_HWCAP2` bit i is named `hwcap2Names[i]` (`HWCAP2_DCPODP` … `HWCAP2_LRCPC3`, bits 0–46);
    /// later bits are left unnamed.
    static let hwcap2Names = [
        "dcpodp", "sve2", "sveaes", "svepmull", "svebitperm", "svesha3", "svesm4", "flagm2", "frint", "svei8mm", "svef32mm",
        "svef64mm", "svebf16", "i8mm", "bf16", "dgh", "rng", "bti", "mte", "ecv", "afp", "rpres", "mte3", "sme", "smei16i64",
        "smef64f64", "smei8i32", "smef16f32", "smeb16f32", "smef32f32", "smefa64", "wfxt", "ebf16", "sveebf16", "cssc", "rprfm",
        "sve2p1", "sme2", "sme2p1", "smei16i32", "smebi32i32", "smeb16b16", "smef16f16", "mops", "hbc", "sveb16b16", "lrcpc3",
    ]

    /// The OpenBLAS core type whose kernels are the fastest correct ones for these features, or
    /// `nil` to leave the choice to OpenBLAS.
    ///
    /// On x86, OpenBLAS 0.3.21 does not recognise some newer CPUs and falls back to Prescott (SSE3)
    /// kernels, 5–8× slower; choosing by features avoids that, and never picks a kernel whose
    /// instructions the CPU lacks (SkylakeX kernels on an AVX2-only CPU die with SIGILL).
    ///
    /// On aarch64, OpenBLAS (0.3.21 in Debian 12, 0.3.29 in Debian 13) reads the core's MIDR
    /// itself and runs the same 16×4 NEON sgemm kernel on every NEON core type, including the
    /// generic `ARMV8` it falls back to for parts it does not know (docs/guides/arm64.md). It
    /// needs help in one case: 0.3.21 runs a Neoverse-N2 on `NEOVERSEN2` kernels, compiled for
    /// SVE, even when the OS has not enabled SVE; there `NEOVERSEN1`, the choice 0.3.29 makes
    /// itself, is returned.
    package var openBLASCoreType: String? {
        if let armCore { return armCore == Self.neoverseN2 && !flags.contains("sve") ? "NEOVERSEN1" : nil }
        let avx512 = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
        if avx512.allSatisfy(flags.contains) { return "SkylakeX" }
        if flags.contains("avx2") && flags.contains("fma") { return vendor == "AuthenticAMD" ? "Zen" : "Haswell" }
        if flags.contains("avx") { return "Sandybridge" }
        return nil
    }

    /// Arm Neoverse-N2 (`ARM_CPU_PART_NEOVERSE_N2` in Linux's arch/arm64/include/asm/cputype.h).
    static let neoverseN2 = ARMCore(implementer: 0x41, part: 0xd49)
}

#if arch(arm64)
/// The process's auxiliary vector. `getauxval` is looked up at run time because Swift's Glibc
/// module does not include `<sys/auxv.h>`.
private enum AuxiliaryVector {
    typealias GetAuxvalFunction = @convention(c) (UInt) -> UInt
    /// `AT_HWCAP` and `AT_HWCAP2` (Linux's include/uapi/linux/auxvec.h).
    static let atHWCAP: UInt = 16, atHWCAP2: UInt = 26

    /// `getauxval(AT_HWCAP)` and `getauxval(AT_HWCAP2)`, or `nil` if libc lacks `getauxval`.
    static func hwcaps() -> (hwcap: UInt64, hwcap2: UInt64)? {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "getauxval") else { return nil }
        let getauxval = unsafeBitCast(symbol, to: GetAuxvalFunction.self)
        return (UInt64(getauxval(atHWCAP)), UInt64(getauxval(atHWCAP2)))
    }
}
#endif
