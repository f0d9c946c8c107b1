import Foundation
import PeripheryCore
import PeripheryGeometry

/// A small seeded generator (SplitMix64) for the synthetic world, so that a seed always yields the
/// same scene and the same noise on every platform.
public struct SyntheticRandom: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's state; advanced by a fixed odd constant on every draw.
    public var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SyntheticRandom.mix(state)
    }

    /// Uniform in `[lo, hi)`.
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * SyntheticRandom.unit(next())
    }

    /// Uniform integer in `range`.
    public mutating func integer(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        return range.lowerBound + Int(next() % span)
    }

    /// `true` with probability `p`.
    mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }

    /// A standard normal draw (Box–Muller, two uniforms).
    public mutating func normal() -> Double {
        (-2 * log(max(uniform(0, 1), .leastNormalMagnitude))).squareRoot() * cos(2 * .pi * uniform(0, 1))
    }

    /// The SplitMix64 finaliser: a bijective 64-bit hash.
    @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A hash of a seed and two integers, for stateless per-pixel or per-cell noise.
    @inline(__always)
    public static func hash(_ seed: UInt64, _ a: Int, _ b: Int) -> UInt64 {
        mix(seed ^ mix(UInt64(bitPattern: Int64(a)) &* 0x9E37_79B9_7F4A_7C15 ^ mix(UInt64(bitPattern: Int64(b)))))
    }

    /// The top 53 bits of `bits` as a number in `[0, 1)`.
    @inline(__always)
    public static func unit(_ bits: UInt64) -> Double { Double(bits >> 11) * 0x1p-53 }
}
