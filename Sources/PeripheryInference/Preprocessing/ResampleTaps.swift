import Foundation

/// The fixed-point taps of a one-dimensional antialiased Lanczos-3 resize from `inSize` samples
/// to `outSize`, placed and rounded as Pillow's `Image.resize(..., Image.Resampling.LANCZOS)` does
/// for 8-bit images, so that the result matches Pillow's to the grey level.
///
/// - Kernel: `L(x) = sinc(x) · sinc(x / 3)` for `−3 ≤ x < 3`, else 0, with `sinc(x) = sin(πx)/(πx)`.
/// - Antialiasing: with `scale = inSize / outSize` and `s = max(scale, 1)`, the kernel is
///   stretched by `s` when downscaling: support `3 · s` input samples each side.
/// - Placement: output sample `i` is centred at input coordinate `c = (i + 0.5) · scale` (pixel
///   centres at half-integers); it reads inputs `j` in `[trunc(c − 3s + 0.5), trunc(c + 3s + 0.5))`
///   clipped to `[0, inSize)`, with weight `L((j − c + 0.5) / s)`. Clipping at the edges drops
///   taps and the remaining weights are renormalised to sum 1 (no edge padding).
/// - Fixed point: each weight is rounded half away from zero to a multiple of 2⁻²²; a pass sums
///   `sample · weight` in Int32 starting from 2²¹ (rounding), shifts right by 22 and clamps to
///   0 ... 255. Zero weights at either end of a tap list are dropped (they change nothing).
struct ResampleTaps {
    /// Fractional bits of the weights (Pillow's `PRECISION_BITS`, 32 − 8 − 2).
    static let precisionBits: Int32 = 22
    /// Half of one output step, the rounding bias every sum starts from.
    static let bias: Int32 = 1 << (precisionBits - 1)
    /// Lanczos lobes, the kernel's support at scale 1.
    static let support = 3.0

    /// Input length.
    let inSize: Int
    /// Output length.
    let outSize: Int
    /// Tap slots per output sample, `stride` of `weights`.
    let stride: Int
    /// First input index read by each output sample.
    let first: [Int]
    /// Number of input samples read by each output sample.
    let count: [Int]
    /// `outSize · stride` fixed-point weights; output `i` uses `weights[i·stride ..< i·stride + count[i]]`.
    let weights: [Int32]

    /// The Lanczos-3 kernel.
    static func lanczos(_ x: Double) -> Double {
        guard -support <= x, x < support else { return 0 }
        return sinc(x) * sinc(x / support)
    }

    private static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let t = x * Double.pi
        return sin(t) / t
    }

    /// Computes the taps; both sizes must be positive.
    init(inSize: Int, outSize: Int) {
        precondition(inSize > 0 && outSize > 0, "resize between empty sizes")
        self.inSize = inSize
        self.outSize = outSize
        let scale = Double(inSize) / Double(outSize)
        let filterScale = max(scale, 1)
        let support = ResampleTaps.support * filterScale
        let inverse = 1 / filterScale
        let stride = Int(support.rounded(.up)) * 2 + 1
        var first = [Int](repeating: 0, count: outSize)
        var count = [Int](repeating: 0, count: outSize)
        var weights = [Int32](repeating: 0, count: outSize * stride)
        var real = [Double](repeating: 0, count: stride)
        let one = Double(1 << ResampleTaps.precisionBits)
        for i in 0..<outSize {
            let center = (Double(i) + 0.5) * scale
            let low = max(Int(center - support + 0.5), 0)
            let n = min(Int(center + support + 0.5), inSize) - low
            var sum = 0.0
            for k in 0..<n {
                real[k] = ResampleTaps.lanczos((Double(k + low) - center + 0.5) * inverse)
                sum += real[k]
            }
            var fixed = [Int32](repeating: 0, count: n)
            for k in 0..<n {
                let w = sum != 0 ? real[k] / sum : real[k]
                fixed[k] = Int32(w < 0 ? -0.5 + w * one : 0.5 + w * one)
            }
            let lead: Int = fixed.firstIndex { $0 != 0 } ?? 0
            let last: Int = fixed.lastIndex { $0 != 0 } ?? (n - 1)
            first[i] = low + lead
            count[i] = max(0, last - lead + 1)
            for k in 0..<count[i] { weights[i * stride + k] = fixed[lead + k] }
        }
        self.stride = stride
        self.first = first
        self.count = count
        self.weights = weights
    }

    /// Input rows or columns `lowerBound ..< upperBound` that any output sample reads.
    var span: Range<Int> {
        let low = first.min() ?? 0
        let high = zip(first, count).map { $0 + $1 }.max() ?? 0
        return low..<max(low, high)
    }
}
