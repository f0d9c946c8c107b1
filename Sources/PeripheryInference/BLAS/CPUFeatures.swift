import Foundation

/// The instruction-set features of this CPU that decide which OpenBLAS kernel is correct and fast.
package struct CPUFeatures: Sendable, Hashable {
    /// CPU vendor string (`GenuineIntel`, `AuthenticAMD`, …), empty if unknown.
    package let vendor: String
    /// Feature flags as the kernel reports them (`avx2`, `fma`, `avx512f`, …).
    package let flags: Set<String>

    /// Reads `/proc/cpuinfo`; the kernel lists only features the OS has enabled, so a flag seen
    /// there is safe to use.
    package static let current: CPUFeatures = {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
            return CPUFeatures(vendor: "", flags: [])
        }
        return CPUFeatures(cpuinfo: text)
    }()

    /// Parses the first processor entry of a `/proc/cpuinfo` text.
    package init(cpuinfo: String) {
        var vendor = "", flags: Set<String> = []
        for line in cpuinfo.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            if parts[0] == "vendor_id" && vendor.isEmpty { vendor = parts[1] }
            if parts[0] == "flags" && flags.isEmpty { flags = Set(parts[1].split(separator: " ").map(String.init)) }
        }
        self.init(vendor: vendor, flags: flags)
    }

    /// Creates features from a vendor and flags.
    package init(vendor: String, flags: Set<String>) {
        self.vendor = vendor
        self.flags = flags
    }

    /// The OpenBLAS core type whose kernels are the fastest correct ones for these features, or
    /// `nil` to leave the choice to OpenBLAS.
    ///
    /// OpenBLAS 0.3.21 does not recognise some newer CPUs and falls back to Prescott (SSE3)
    /// kernels, 5–8× slower; choosing by features avoids that, and never picks a kernel whose
    /// instructions the CPU lacks (SkylakeX kernels on an AVX2-only CPU die with SIGILL).
    package var openBLASCoreType: String? {
        let avx512 = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
        if avx512.allSatisfy(flags.contains) { return "SkylakeX" }
        if flags.contains("avx2") && flags.contains("fma") { return vendor == "AuthenticAMD" ? "Zen" : "Haswell" }
        if flags.contains("avx") { return "Sandybridge" }
        return nil
    }
}
