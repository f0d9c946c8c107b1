/// A small seeded generator (SplitMix64), so that every random test is reproducible: the same
/// sequence as the synthetic world's `SyntheticRandom` for the same seed.
package struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's state; advanced by a fixed odd constant on every draw.
    package var state: UInt64

    /// Creates a generator from a seed.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededRandom.mix(state)
    }

    /// Uniform in `[lo, hi)`: the top 53 bits of a draw.
    package mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * Double(next() >> 11) * 0x1p-53
    }

    /// Uniform integer in `range`.
    package mutating func integer(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        return range.lowerBound + Int(next() % span)
    }

    /// `true` with probability `p`.
    package mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }

    /// The SplitMix64 finaliser: a bijective 64-bit hash, for deriving seeds.
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
