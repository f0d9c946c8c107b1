import PeripheryTestSupport
import Testing

@testable import PeripheryGeometry
@testable import PeripheryInference

/// Deterministic test data from the seeded generator, so failures reproduce.
extension SeededRandom {
    mutating func float() -> Float { Float(next() >> 40) / Float(1 << 24) * 2 - 1 }
    mutating func floats(_ count: Int) -> [Float] { (0..<count).map { _ in float() } }
}

/// A context and arena sized for test shapes.
func makeContext(threads: Int, scratch: Int = 1 << 16, arena: Int = 1 << 22) throws -> (ComputeContext, TensorArena) {
    let blas = try OpenBLAS.load()
    blas.setThreads(1)
    let storage = TensorArena(capacity: arena + threads * (scratch + 16))
    return (ComputeContext(blas: blas, threads: threads, arena: storage, scratchCount: scratch), storage)
}

func fill(_ tensor: Tensor, _ values: [Float]) { tensor.data.update(from: values, count: tensor.count) }
func read(_ tensor: Tensor) -> [Float] { Array(UnsafeBufferPointer(start: tensor.data, count: tensor.count)) }

/// max|a − b| / max|b|.
func relativeError(_ a: [Float], _ b: [Double]) -> Double {
    precondition(a.count == b.count)
    var worst = 0.0, scale = 0.0
    for (x, y) in zip(a, b) {
        worst = max(worst, abs(Double(x) - y))
        scale = max(scale, abs(y))
    }
    return worst / max(scale, 1e-30)
}

/// Direct convolution in Double, the definition written out.
func naiveConvolution(_ conv: Convolution, _ input: [Float], h: Int, w: Int, residual: [Float]?, relu: Bool) -> [Double] {
    let oh = conv.outputSize(h), ow = conv.outputSize(w), k = conv.kernelSize
    var out = [Double](repeating: 0, count: conv.outChannels * oh * ow)
    for co in 0..<conv.outChannels {
        for oy in 0..<oh {
            for ox in 0..<ow {
                var sum = Double(conv.bias[co])
                for ci in 0..<conv.inChannels {
                    for ky in 0..<k {
                        for kx in 0..<k {
                            let iy = oy * conv.stride - conv.padding + ky, ix = ox * conv.stride - conv.padding + kx
                            guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
                            sum += Double(conv.weights[((co * conv.inChannels + ci) * k + ky) * k + kx]) * Double(input[(ci * h + iy) * w + ix])
                        }
                    }
                }
                let index = (co * oh + oy) * ow + ox
                if let residual { sum += Double(residual[index]) }
                out[index] = relu ? max(sum, 0) : sum
            }
        }
    }
    return out
}

/// Runs `conv` on a random `[Cin, h, w]` input, with a random residual if asked (output prefilled
/// with NaN, so every element must be written), and returns its relative error against
/// ``naiveConvolution``.
func naiveConvolutionError(
    _ conv: Convolution, h: Int, w: Int, residual useResidual: Bool = false, relu: Bool, threads: Int, scratch: Int,
    rng: inout SeededRandom
) throws -> Double {
    let (context, arena) = try makeContext(threads: threads, scratch: scratch)
    let input = arena.tensor(conv.inChannels, h, w)
    let output = arena.tensor(conv.outChannels, conv.outputSize(h), conv.outputSize(w))
    let values = rng.floats(input.count)
    fill(input, values)
    var residual: Tensor?
    var residualValues: [Float]?
    if useResidual {
        let r = arena.tensor(output.channels, output.height, output.width)
        let rv = rng.floats(r.count)
        fill(r, rv)
        (residual, residualValues) = (r, rv)
    }
    fill(output, [Float](repeating: .nan, count: output.count))
    context.convolve(conv, input, into: output, Epilogue(residual: residual, relu: relu))
    return relativeError(read(output), naiveConvolution(conv, values, h: h, w: w, residual: residualValues, relu: relu))
}

@Suite struct KernelTests {
    /// 24 random shapes: odd sizes, strides 1/2, kernels 1/3/7 with "same" padding or none,
    /// with and without residual and ReLU, on 1–3 workers and scratch small enough to force tiling.
    @Test(arguments: 0..<24)
    func convolutionMatchesNaive(_ seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &* 7919 &+ 1)
        let k = [1, 3, 7][rng.integer(0...2)], stride = rng.integer(1...2)
        let padding = seed % 5 == 0 ? 0 : k / 2
        let cin = rng.integer(1...13), cout = rng.integer(1...17), h = rng.integer(k...23), w = rng.integer(k...29)
        let threads = rng.integer(1...3)
        let conv = Convolution(
            name: "test", inChannels: cin, outChannels: cout, kernelSize: k, stride: stride, padding: padding,
            weights: rng.floats(cout * cin * k * k), bias: rng.floats(cout))
        let error = try naiveConvolutionError(
            conv, h: h, w: w, residual: seed % 3 == 0, relu: seed % 2 == 1, threads: threads,
            scratch: seed % 2 == 0 ? 1 << 16 : cin * k * k * 3, rng: &rng)
        #expect(error <= 1e-5, "k\(k) s\(stride) p\(padding) \(cin)→\(cout) \(h)×\(w) threads \(threads)")
    }

    /// Weight matrices above `Convolution`'s large-weights threshold take the fewest column tiles the
    /// scratch allows: with scratch for the whole map, for half of it, and for a sixth of it.
    @Test(arguments: [(2, 1 << 20), (2, 1152 * 96), (3, 1152 * 32)])
    func largeWeightConvolutionMatchesNaive(threads: Int, scratch: Int) throws {
        var rng = SeededRandom(seed: UInt64(threads * 31 + scratch))
        let (cin, cout, h, w) = (128, 272, 12, 16)
        let conv = Convolution(
            name: "large", inChannels: cin, outChannels: cout, kernelSize: 3, stride: 1, padding: 1,
            weights: rng.floats(cout * cin * 9), bias: rng.floats(cout))
        #expect(conv.hasLargeWeights)
        let error = try naiveConvolutionError(conv, h: h, w: w, relu: true, threads: threads, scratch: scratch, rng: &rng)
        #expect(error <= 1e-5)
    }

    /// A stem-like convolution (3→16, 7×7 stride 2) whose im2col matrix is more than four tiles of
    /// `Convolution.cachedTile` per worker, so the cap, not the workers, sets the number of tiles.
    @Test(arguments: [1, 2, 3])
    func cachedTileConvolutionMatchesNaive(threads: Int) throws {
        var rng = SeededRandom(seed: UInt64(threads) &+ 4242)
        let (h, w) = (300, 301)
        let conv = Convolution(
            name: "stem", inChannels: 3, outChannels: 16, kernelSize: 7, stride: 2, padding: 3,
            weights: rng.floats(16 * 3 * 49), bias: rng.floats(16))
        #expect(conv.outputSize(h) * conv.outputSize(w) * conv.reduction > 4 * threads * Convolution.cachedTile)
        let error = try naiveConvolutionError(conv, h: h, w: w, relu: false, threads: threads, scratch: 1 << 20, rng: &rng)
        #expect(error <= 1e-5)
    }

    @Test(arguments: 0..<20)
    func maxPoolMatchesNaive(_ seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &+ 100)
        let c = rng.integer(1...9), h = rng.integer(2...21), w = rng.integer(2...21)
        let (context, arena) = try makeContext(threads: rng.integer(1...3))
        let input = arena.tensor(c, h, w), output = arena.tensor(c, (h - 1) / 2 + 1, (w - 1) / 2 + 1)
        let values = rng.floats(input.count)
        fill(input, values)
        context.maxPool3x3Stride2(input, into: output)
        var expected: [Double] = []
        for ch in 0..<c {
            for oy in 0..<output.height {
                for ox in 0..<output.width {
                    var best = -Double.infinity
                    for y in (2 * oy - 1)...(2 * oy + 1) where y >= 0 && y < h {
                        for x in (2 * ox - 1)...(2 * ox + 1) where x >= 0 && x < w { best = max(best, Double(values[(ch * h + y) * w + x])) }
                    }
                    expected.append(best)
                }
            }
        }
        #expect(relativeError(read(output), expected) == 0)
    }

    @Test(arguments: 0..<20)
    func bilinearMatchesPyTorchFormula(_ seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &+ 200)
        let c = rng.integer(1...5), sh = rng.integer(1...17), sw = rng.integer(1...17), th = rng.integer(1...40), tw = rng.integer(1...40)
        let (context, arena) = try makeContext(threads: rng.integer(1...2))
        let source = arena.tensor(c, sh, sw), target = arena.tensor(c, th, tw)
        let values = rng.floats(source.count)
        fill(source, values)
        context.resizeBilinear(source, into: target)
        // align_corners = False: src = max((d + 0.5)·S/D − 0.5, 0), neighbours clamped at the edge.
        func taps(_ d: Int, _ s: Int, _ t: Int) -> (Int, Int, Double) {
            let real = max((Double(d) + 0.5) * Double(s) / Double(t) - 0.5, 0)
            let i0 = min(Int(real.rounded(.down)), s - 1)
            return (i0, min(i0 + 1, s - 1), real - Double(i0))
        }
        var expected: [Double] = []
        for ch in 0..<c {
            for y in 0..<th {
                let (y0, y1, ly) = taps(y, sh, th)
                for x in 0..<tw {
                    let (x0, x1, lx) = taps(x, sw, tw)
                    func v(_ yy: Int, _ xx: Int) -> Double { Double(values[(ch * sh + yy) * sw + xx]) }
                    expected.append((1 - ly) * ((1 - lx) * v(y0, x0) + lx * v(y0, x1)) + ly * ((1 - lx) * v(y1, x0) + lx * v(y1, x1)))
                }
            }
        }
        #expect(relativeError(read(target), expected) <= 1e-5, "\(sh)×\(sw) → \(th)×\(tw)")
    }

    @Test(arguments: 0..<20)
    func nearestUpsampleAddMatchesNaive(_ seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &+ 300)
        let c = rng.integer(1...5), sh = rng.integer(1...9), sw = rng.integer(1...9), th = rng.integer(1...20), tw = rng.integer(1...20)
        let (context, arena) = try makeContext(threads: rng.integer(1...2))
        let source = arena.tensor(c, sh, sw), target = arena.tensor(c, th, tw)
        let s = rng.floats(source.count), t = rng.floats(target.count)
        fill(source, s)
        fill(target, t)
        context.addNearestUpsampled(source, into: target)
        var expected: [Double] = []
        for ch in 0..<c {
            for y in 0..<th {
                for x in 0..<tw {
                    let sy = Int((Double(y) * Double(sh) / Double(th)).rounded(.down))
                    let sx = Int((Double(x) * Double(sw) / Double(tw)).rounded(.down))
                    expected.append(Double(t[(ch * th + y) * tw + x]) + Double(s[(ch * sh + sy) * sw + sx]))
                }
            }
        }
        #expect(relativeError(read(target), expected) <= 1e-6)
    }

    @Test(arguments: 0..<20)
    func spaceToChannelMatchesPermuteReshape(_ seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &+ 400)
        let (context, arena) = try makeContext(threads: rng.integer(1...3))
        let channels = rng.integer(1...9), x = rng.integer(1...7), y = rng.integer(1...9), z = rng.integer(1...3)
        let volume = arena.tensor(channels, 1, x * y * z), output = arena.tensor(z * channels, x, y)
        let values = rng.floats(volume.count)
        fill(volume, values)
        context.spaceToChannel(volume: volume.data, channels: channels, depth: z, into: output)
        // permute(0,2,3,4,1) → [X, Y, Z, C]; reshape [X, Y, Z·C] (k = z·C + c); permute to [Z·C, X, Y].
        var expected = [Double](repeating: 0, count: output.count)
        for c in 0..<channels {
            for ix in 0..<x {
                for iy in 0..<y {
                    for iz in 0..<z {
                        expected[((iz * channels + c) * x + ix) * y + iy] = Double(values[c * x * y * z + (ix * y + iy) * z + iz])
                    }
                }
            }
        }
        #expect(relativeError(read(output), expected) == 0)
    }

    /// The fused head GEMM on the real head shape and 20 random ones.
    @Test(arguments: 0..<21)
    func pointwiseTransposedMatchesNaive(_ seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &+ 500)
        let (cin, h, w, cout) = seed == 0 ? (192, 21, 40, 120) : (rng.integer(1...40), rng.integer(1...9), rng.integer(1...11), rng.integer(1...33))
        let conv = Convolution(
            name: "head", inChannels: cin, outChannels: cout, kernelSize: 1, stride: 1, padding: 0,
            weights: rng.floats(cout * cin), bias: rng.floats(cout))
        let (context, arena) = try makeContext(threads: 1)
        let input = arena.tensor(cin, h, w), out = arena.take(h * w * cout)
        let values = rng.floats(input.count)
        fill(input, values)
        context.pointwiseTransposed(conv, input, into: out)
        let direct = naiveConvolution(conv, values, h: h, w: w, residual: nil, relu: false)
        // Candidate-major: out[s, j] = conv[j, s].
        var expected = [Double](repeating: 0, count: h * w * cout)
        for j in 0..<cout { for s in 0..<(h * w) { expected[s * cout + j] = direct[j * h * w + s] } }
        #expect(relativeError(Array(UnsafeBufferPointer(start: out, count: h * w * cout)), expected) <= 1e-5)
    }

    @Test(arguments: 0..<20)
    func batchNormFoldingMatchesConvThenBatchNorm(_ seed: Int) {
        var rng = SeededRandom(seed: UInt64(seed) &+ 600)
        let cin = rng.integer(1...5), cout = rng.integer(1...6), k = [1, 3][seed % 2], h = rng.integer(3...8), w = rng.integer(3...9)
        let weights = rng.floats(cout * cin * k * k), input = rng.floats(cin * h * w)
        let gamma = rng.floats(cout), beta = rng.floats(cout), mean = rng.floats(cout)
        let variance = (0..<cout).map { _ in rng.float() + 1.5 }
        var folded = weights, bias = [Float](repeating: 0, count: cout)
        Safety40Weights.foldBatchNorm(weights: &folded, bias: &bias, gamma: gamma, beta: beta, mean: mean, variance: variance)
        let raw = Convolution(
            name: "raw", inChannels: cin, outChannels: cout, kernelSize: k, stride: 1, padding: k / 2,
            weights: weights, bias: [Float](repeating: 0, count: cout))
        let fused = Convolution(
            name: "fused", inChannels: cin, outChannels: cout, kernelSize: k, stride: 1, padding: k / 2,
            weights: folded, bias: bias)
        let plain = naiveConvolution(raw, input, h: h, w: w, residual: nil, relu: false)
        var expected = plain
        for c in 0..<cout {
            for i in 0..<(h * w) {
                let x = plain[c * h * w + i]
                expected[c * h * w + i] = (x - Double(mean[c])) / (Double(variance[c]) + 1e-5).squareRoot() * Double(gamma[c]) + Double(beta[c])
            }
        }
        let got = naiveConvolution(fused, input, h: h, w: w, residual: nil, relu: false)
        #expect(relativeError(got.map(Float.init), expected) <= 1e-6)
    }
}

@Suite struct WinogradTests {
    /// 20 random shapes, including maps that are not multiples of the 4×4 tile and 1-pixel maps.
    @Test(arguments: 0..<20)
    func winogradMatchesNaive(_ seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &+ 700)
        let cin = rng.integer(1...19), cout = rng.integer(1...21), h = rng.integer(1...60), w = rng.integer(1...90)
        try check(cin: cin, cout: cout, h: h, w: w, threads: rng.integer(1...3), seed: seed, rng: &rng)
    }

    /// Maps of more than `maximumUnblockedTiles` tiles, which run in blocks of tile rows.
    @Test(arguments: [(61, 97, 2), (64, 128, 3), (70, 90, 2)])
    func blockedWinogradMatchesNaive(h: Int, w: Int, threads: Int) throws {
        #expect(WinogradPlan(height: h, width: w, threads: threads).blocks > 0)
        var rng = SeededRandom(seed: UInt64(h * w))
        try check(cin: 7, cout: 5, h: h, w: w, threads: threads, seed: h, rng: &rng)
    }

    private func check(cin: Int, cout: Int, h: Int, w: Int, threads: Int, seed: Int, rng: inout SeededRandom) throws {
        let conv = Convolution(
            name: "w", inChannels: cin, outChannels: cout, kernelSize: 3, stride: 1, padding: 1,
            weights: rng.floats(cout * cin * 9), bias: rng.floats(cout))
        let tiles = WinogradPlan(height: h, width: w, threads: threads).bufferTiles
        let (context, arena) = try makeContext(threads: threads)
        let input = arena.tensor(cin, h, w), output = arena.tensor(cout, h, w)
        let values = rng.floats(input.count)
        fill(input, values)
        let relu = seed % 2 == 0, useResidual = seed % 3 == 0
        var residual: Tensor?, residualValues: [Float]?
        if useResidual {
            let r = arena.tensor(cout, h, w)
            residualValues = rng.floats(r.count)
            fill(r, residualValues!)
            residual = r
        }
        fill(output, [Float](repeating: .nan, count: output.count))
        context.convolve(
            WinogradConvolution(conv), input, into: output, Epilogue(residual: residual, relu: relu),
            transformed: (0..<threads).map { _ in arena.take(36 * cin * tiles) },
            products: (0..<threads).map { _ in arena.take(36 * cout * tiles) })
        let expected = naiveConvolution(conv, values, h: h, w: w, residual: residualValues, relu: relu)
        // F(4×4, 3×3) in float32 loses a little more than direct summation; 1e-5 relative still holds.
        #expect(relativeError(read(output), expected) <= 1e-5, "\(cin)→\(cout) \(h)×\(w)")
    }
}
