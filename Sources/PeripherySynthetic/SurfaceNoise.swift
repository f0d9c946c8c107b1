/// Smooth procedural noise for the structured world's textures: hashed lattice values blended with
/// a smoothstep, summed over octaves. Deterministic in its seed on every platform.
enum SurfaceNoise {
    /// Value noise in [0, 1) at `(x, y)`, one lattice cell per unit.
    @inline(__always)
    static func value(_ seed: UInt64, _ x: Double, _ y: Double) -> Double {
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let ix = Int(fx), iy = Int(fy)
        let tx = x - fx, ty = y - fy
        let sx = tx * tx * (3 - 2 * tx), sy = ty * ty * (3 - 2 * ty)
        let a = SyntheticRandom.unit(SyntheticRandom.hash(seed, ix, iy))
        let b = SyntheticRandom.unit(SyntheticRandom.hash(seed, ix &+ 1, iy))
        let c = SyntheticRandom.unit(SyntheticRandom.hash(seed, ix, iy &+ 1))
        let d = SyntheticRandom.unit(SyntheticRandom.hash(seed, ix &+ 1, iy &+ 1))
        return a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy
    }

    /// The sum of `octaves` layers of value noise, each at twice the frequency and half the
    /// amplitude of the one before, normalised back to [0, 1).
    @inline(__always)
    static func fractal(_ seed: UInt64, _ x: Double, _ y: Double, octaves: Int) -> Double {
        var sum = 0.0, amplitude = 1.0, total = 0.0, frequency = 1.0
        for octave in 0..<octaves {
            sum += amplitude * value(seed &+ UInt64(octave), x * frequency, y * frequency)
            total += amplitude
            amplitude *= 0.5
            frequency *= 2
        }
        return sum / total
    }

    /// Value noise over a 3-D point, from two 2-D layers (cheap and enough for surface mottling).
    @inline(__always)
    static func solid(_ seed: UInt64, _ p: SIMD3<Double>) -> Double {
        0.5 * (value(seed, p.x + 0.37 * p.z, p.y - 0.21 * p.z) + value(seed &+ 17, p.y + 0.53 * p.x, p.z + 0.29 * p.x))
    }
}
