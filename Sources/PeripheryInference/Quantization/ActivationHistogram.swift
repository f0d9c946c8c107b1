/// The values one quantization point took over the calibration frames, and the uint8 range that
/// quantizes them with the least mean squared error.
///
/// Two passes, because a histogram needs its range first: `observeRange` over every frame, then
/// `observeHistogram` over every frame again.
struct ActivationHistogram {
    /// Bins of the histogram: 8 per uint8 step at full range, so the error of a candidate range is
    /// resolved well below one step.
    static let bins = 2048

    private(set) var low: Float = 0, high: Float = 0
    private var counts: [Double] = []

    /// Widens the range to the values in `values` (always including 0, which must be exact).
    mutating func observeRange(_ values: UnsafeBufferPointer<Float>) {
        var lo = low, hi = high
        for v in values where v.isFinite {
            lo = min(lo, v)
            hi = max(hi, v)
        }
        (low, high) = (lo, hi)
    }

    /// Counts `values` into the histogram over the range of the first pass.
    mutating func observeHistogram(_ values: UnsafeBufferPointer<Float>) {
        if counts.isEmpty { counts = [Double](repeating: 0, count: Self.bins) }
        guard high > low else { return }
        let scale = Float(Self.bins) / (high - low), last = Self.bins - 1, lo = low
        counts.withUnsafeMutableBufferPointer { counts in
            for v in values where v.isFinite {
                counts[min(last, max(0, Int((v - lo) * scale)))] += 1
            }
        }
    }

    /// The quantization whose clipping plus rounding error over the histogram is least, among the
    /// ranges `[α·low, α·high]` for α from 1 down to 0.2: full min–max range wastes most steps on
    /// rare outliers, a tighter one clips them.
    func bestQuantization() -> ActivationQuantization {
        guard high > low else { return ActivationQuantization(scale: 1, zeroPoint: 0) }
        var best: (error: Double, q: ActivationQuantization)?
        let width = Double(high - low) / Double(Self.bins)
        for step in 0...80 {
            let alpha = 1 - Double(step) * 0.01
            let q = Self.quantization(low: Double(low) * alpha, high: Double(high) * alpha)
            var error = 0.0
            for (bin, count) in counts.enumerated() where count > 0 {
                let x = Double(low) + (Double(bin) + 0.5) * width
                let e = Double(q.dequantize(q.quantize(Float(x)))) - x
                error += count * e * e
            }
            if best.map({ error < $0.error }) ?? true { best = (error, q) }
        }
        return best?.q ?? Self.quantization(low: Double(low), high: Double(high))
    }

    /// The affine uint8 quantization of `[low, high]` (low ≤ 0 ≤ high) whose zero point is exact.
    static func quantization(low: Double, high: Double) -> ActivationQuantization {
        let scale = max((high - low) / 255, 1e-8)
        let zero = max(0, min(255, (-low / scale).rounded()))
        return ActivationQuantization(scale: Float(scale), zeroPoint: UInt8(zero))
    }
}
