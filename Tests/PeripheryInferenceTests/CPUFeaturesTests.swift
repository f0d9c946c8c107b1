import Testing

@testable import PeripheryInference

/// CPU features on aarch64: /proc/cpuinfo's `Features` line and MIDR fields, the auxiliary
/// vector's hwcap bits, and the OpenBLAS core type chosen from them (docs/guides/arm64.md).
@Suite struct CPUFeaturesTests {
    /// A Raspberry Pi 5 (BCM2712, Cortex-A76 r4p1; its other three processors are the same): ARMv8.2
    /// with the dot product, no I8MM or SVE.
    static let raspberryPi5 = """
        processor\t: 0
        BogoMIPS\t: 108.00
        Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
        CPU implementer\t: 0x41
        CPU architecture: 8
        CPU variant\t: 0x4
        CPU part\t: 0xd0b
        CPU revision\t: 1

        Revision\t: d04170
        Model\t\t: Raspberry Pi 5 Model B Rev 1.0
        """

    /// An AWS Graviton3 (Neoverse-V1 r1p1): SVE, I8MM and BF16.
    static let neoverseV1 = """
        processor\t: 0
        BogoMIPS\t: 2100.00
        Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop \
        sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng
        CPU implementer\t: 0x41
        CPU architecture: 8
        CPU variant\t: 0x1
        CPU part\t: 0xd40
        CPU revision\t: 1
        """

    /// The hwcap bits of Linux's arch/arm64/include/uapi/asm/hwcap.h, restated as the reference.
    enum HWCap {
        static let fp: UInt64 = 1 << 0, asimd: UInt64 = 1 << 1, evtstrm: UInt64 = 1 << 2, aes: UInt64 = 1 << 3
        static let pmull: UInt64 = 1 << 4, sha1: UInt64 = 1 << 5, sha2: UInt64 = 1 << 6, crc32: UInt64 = 1 << 7
        static let atomics: UInt64 = 1 << 8, fphp: UInt64 = 1 << 9, asimdhp: UInt64 = 1 << 10, cpuid: UInt64 = 1 << 11
        static let asimdrdm: UInt64 = 1 << 12, jscvt: UInt64 = 1 << 13, fcma: UInt64 = 1 << 14, lrcpc: UInt64 = 1 << 15
        static let dcpop: UInt64 = 1 << 16, sha3: UInt64 = 1 << 17, sm3: UInt64 = 1 << 18, sm4: UInt64 = 1 << 19
        static let asimddp: UInt64 = 1 << 20, sha512: UInt64 = 1 << 21, sve: UInt64 = 1 << 22, asimdfhm: UInt64 = 1 << 23
        static let dit: UInt64 = 1 << 24, uscat: UInt64 = 1 << 25, ilrcpc: UInt64 = 1 << 26, flagm: UInt64 = 1 << 27
        static let ssbs: UInt64 = 1 << 28, paca: UInt64 = 1 << 30, pacg: UInt64 = 1 << 31
        // HWCAP2_*
        static let dcpodp: UInt64 = 1 << 0, sve2: UInt64 = 1 << 1, svei8mm: UInt64 = 1 << 9, svebf16: UInt64 = 1 << 12
        static let i8mm: UInt64 = 1 << 13, bf16: UInt64 = 1 << 14, dgh: UInt64 = 1 << 15, rng: UInt64 = 1 << 16
        static let lrcpc3: UInt64 = 1 << 46
    }

    /// The Raspberry Pi 5's `AT_HWCAP` (its `AT_HWCAP2` is 0).
    static let raspberryPi5HWCap: UInt64 = {
        let h = HWCap.self
        return h.fp | h.asimd | h.evtstrm | h.aes | h.pmull | h.sha1 | h.sha2 | h.crc32 | h.atomics | h.fphp | h.asimdhp | h.cpuid
            | h.asimdrdm | h.lrcpc | h.dcpop | h.asimddp
    }()

    @Test func parsesAnAarch64Cpuinfo() {
        let pi = CPUFeatures(cpuinfo: Self.raspberryPi5)
        #expect(pi.armCore == CPUFeatures.ARMCore(implementer: 0x41, part: 0xd0b))
        #expect(pi.vendor.isEmpty)
        #expect(pi.flags.count == 16 && pi.flags.isSuperset(of: ["fp", "asimd", "asimddp"]) && !pi.flags.contains("i8mm"))
        let v1 = CPUFeatures(cpuinfo: Self.neoverseV1)
        #expect(v1.armCore == CPUFeatures.ARMCore(implementer: 0x41, part: 0xd40))
        #expect(v1.flags.isSuperset(of: ["asimd", "asimddp", "i8mm", "sve", "bf16", "svei8mm"]) && !v1.flags.contains("sve2"))
        #expect(CPUFeatures(cpuinfo: OpenBLASTests.zen3).armCore == nil)
    }

    /// Decoding the hwcap bits gives the same names as the kernel's `Features` line.
    @Test func decodesHWCapBitsAsCpuinfoNamesThem() {
        #expect(CPUFeatures.armFeatures(hwcap: Self.raspberryPi5HWCap, hwcap2: 0) == CPUFeatures(cpuinfo: Self.raspberryPi5).flags)
        let h = HWCap.self
        let v1 =
            Self.raspberryPi5HWCap | h.jscvt | h.fcma | h.sha3 | h.sm3 | h.sm4 | h.sha512 | h.sve | h.asimdfhm | h.dit | h.uscat
            | h.ilrcpc | h.flagm | h.ssbs | h.paca | h.pacg
        let v1Two = h.dcpodp | h.svei8mm | h.svebf16 | h.i8mm | h.bf16 | h.dgh | h.rng
        #expect(CPUFeatures.armFeatures(hwcap: v1, hwcap2: v1Two) == CPUFeatures(cpuinfo: Self.neoverseV1).flags)
        #expect(CPUFeatures.armFeatures(hwcap: 0, hwcap2: h.sve2 | h.lrcpc3) == ["sve2", "lrcpc3"])
        // Bits past the named ones (HWCAP2 47 and up) are left out rather than misnamed.
        #expect(CPUFeatures.armFeatures(hwcap: 0, hwcap2: 1 << 47 | 1 << 63).isEmpty)
        #expect(CPUFeatures.hwcapNames.count == 32 && CPUFeatures.hwcap2Names.count == 47)
    }

    /// OpenBLAS chooses for itself on ARM, except a Neoverse-N2 whose OS has not enabled SVE:
    /// OpenBLAS 0.3.21 would run its SVE-compiled `NEOVERSEN2` kernels there.
    @Test func choosesAnOpenBLASCoreOnlyWhereOpenBLASNeedsHelp() {
        #expect(CPUFeatures(cpuinfo: Self.raspberryPi5).openBLASCoreType == nil)
        #expect(CPUFeatures(cpuinfo: Self.neoverseV1).openBLASCoreType == nil)
        let n2 = CPUFeatures.ARMCore(implementer: 0x41, part: 0xd49)
        #expect(CPUFeatures(vendor: "", flags: ["asimd", "asimddp", "sve", "sve2"], armCore: n2).openBLASCoreType == nil)
        #expect(CPUFeatures(vendor: "", flags: ["asimd", "asimddp"], armCore: n2).openBLASCoreType == "NEOVERSEN1")
        // An aarch64 process whose /proc/cpuinfo is an x86 host's (qemu-user) has no core: no choice.
        #expect(CPUFeatures(vendor: "", flags: ["asimd", "asimddp"]).openBLASCoreType == nil)
    }
}
