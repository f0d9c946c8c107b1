/// A 2-D convolution with any batch norm folded in, ready for im2col + sgemm.
///
/// `out[co, y, x] = bias[co] + Σ_{ci,ky,kx} weights[co, ci, ky, kx] · in[ci, y·s − p + ky, x·s − p + kx]`
/// (cross-correlation, zero padding, dilation 1, groups 1). `weights` is PyTorch's
/// `[outChannels, inChannels, k, k]` flattened, which is the row-major `[M = outChannels, K = inChannels·k·k]`
/// GEMM operand as is.
struct Convolution: Sendable {
    let name: String
    let inChannels: Int
    let outChannels: Int
    let kernelSize: Int
    let stride: Int
    let padding: Int
    /// `[outChannels, inChannels · k · k]`.
    let weights: [Float]
    /// `[outChannels]`.
    let bias: [Float]

    /// GEMM inner dimension `inChannels · k · k`.
    var reduction: Int { inChannels * kernelSize * kernelSize }

    /// Output extent along one axis: `(size + 2p − k) / s + 1`.
    func outputSize(_ size: Int) -> Int { (size + 2 * padding - kernelSize) / stride + 1 }

    /// Weight matrices (`outChannels · reduction` floats) above this many are split into as few
    /// column tiles as possible: 4 per worker made layer 4 and the BEV neck's stride-2 layer pack
    /// their 1–9 MB of weights 2–4 times over (docs/results/benchmarks.md).
    static let largeWeights = 1 << 18

    /// Most floats of one im2col tile of a small-weight convolution (1 MB, half a core's L2): larger
    /// tiles, such as the 7×7 stem's 2.4 MB, fall out of the cache between writing and reading
    /// (docs/results/benchmarks.md).
    static let cachedTile = 1 << 18

    /// Whether the weight matrix is above ``largeWeights``.
    var hasLargeWeights: Bool { outChannels * reduction > Convolution.largeWeights }

    /// Whether the input is already the GEMM operand (1×1, stride 1, no padding).
    var isPointwise: Bool { kernelSize == 1 && stride == 1 && padding == 0 }
}

/// What to apply after the GEMM, on data still in cache: `y = act(x + bias + residual)`.
struct Epilogue {
    var residual: Tensor?
    var relu: Bool
}

extension ComputeContext {
    /// Runs a convolution: `input [Cin, H, W]` → `output [Cout, H', W']`, then bias, optional residual
    /// add and optional ReLU.
    ///
    /// Work is split into items by output columns (pixels) when the map is large, each item
    /// building the im2col tile it needs in its worker's scratch; small maps are split by output
    /// channels instead, each item building the whole (small) im2col matrix. Workers take items
    /// dynamically.
    func convolve(_ conv: Convolution, _ input: Tensor, into output: Tensor, _ epilogue: Epilogue) {
        precondition(input.channels == conv.inChannels, "\(conv.name): input has \(input.channels) channels")
        precondition(
            output.channels == conv.outChannels && output.height == conv.outputSize(input.height)
                && output.width == conv.outputSize(input.width), "\(conv.name): output shape")
        let k = conv.reduction, n = output.plane
        let splitByColumns = n >= 64 * threads
        // Column tiles small enough for one worker's scratch, and when splitting by columns at least
        // four per worker (of at least 64 columns) so that the dynamic schedule can balance them.
        precondition(conv.isPointwise || k <= scratchCount, "\(conv.name): scratch smaller than one im2col column")
        // Every column tile makes OpenBLAS pack the whole weight matrix again: where that matrix is
        // large, take as few tiles as the scratch allows (a multiple of the workers). Otherwise keep
        // each tile's im2col matrix within `cachedTile` floats, so the GEMM reads it from L2
        // (`k ≤ cachedTile` there, since the weights alone are `outChannels · k` floats).
        let maxColumns = conv.isPointwise ? n : (conv.hasLargeWeights ? scratchCount : min(scratchCount, Convolution.cachedTile)) / k
        let tilesNeeded = (n + maxColumns - 1) / maxColumns
        let fewest = ((tilesNeeded + threads - 1) / threads) * threads
        let columnTiles =
            !splitByColumns
            ? tilesNeeded
            : conv.hasLargeWeights
                ? max(tilesNeeded, min(fewest, n / 64))
                : max(tilesNeeded, min(4 * threads, n / 64))
        let rowParts = splitByColumns ? 1 : threads
        /// One item: a column tile × output-channel part (one of the two is 1).
        struct Job: ItemJob {
            let context: ComputeContext, conv: Convolution, input, output: Tensor, epilogue: Epilogue
            let weights, bias: UnsafePointer<Float>, columnTiles: Int, rowParts: Int

            func run(worker: Int, item: Int) {
                let m = conv.outChannels, k = conv.reduction, n = output.plane
                let rows = ComputeContext.part(item % rowParts, of: rowParts, count: m)
                let columns = ComputeContext.part(item / rowParts, of: columnTiles, count: n)
                guard !rows.isEmpty, !columns.isEmpty else { return }
                let operand: UnsafePointer<Float>, ldb: Int
                if conv.isPointwise {
                    (operand, ldb) = (UnsafePointer(input.data + columns.lowerBound), n)
                } else {
                    let scratch = context.scratch[worker]
                    im2col(conv, input, outputWidth: output.width, columns: columns, into: scratch)
                    (operand, ldb) = (UnsafePointer(scratch), columns.count)
                }
                context.blas.sgemm(
                    m: rows.count, n: columns.count, k: k, a: weights + rows.lowerBound * k, lda: k,
                    b: operand, ldb: ldb, beta: 0,
                    c: output.data + rows.lowerBound * n + columns.lowerBound, ldc: n)
                applyEpilogue(epilogue, bias: bias, output: output.data, plane: n, rows: rows, columns: columns)
            }
        }
        conv.weights.withUnsafeBufferPointer { weights in
            conv.bias.withUnsafeBufferPointer { bias in
                guard let w = weights.baseAddress, let b = bias.baseAddress else { return }
                parallelFor(
                    columnTiles * rowParts,
                    Job(
                        context: self, conv: conv, input: input, output: output, epilogue: epilogue, weights: w, bias: b,
                        columnTiles: columnTiles, rowParts: rowParts))
            }
        }
    }
}

/// Writes the im2col matrix of output pixels `columns` (flat `y·W' + x`): row `(ci·k + ky)·k + kx`,
/// column `j` holds `in[ci, y·s − p + ky, x·s − p + kx]` (0 outside), with row stride `columns.count`.
func im2col(_ conv: Convolution, _ input: Tensor, outputWidth: Int, columns: Range<Int>, into col: UnsafeMutablePointer<Float>) {
    let k = conv.kernelSize, s = conv.stride, p = conv.padding
    let h = input.height, w = input.width, tileWidth = columns.count
    for ci in 0..<conv.inChannels {
        let plane = input.data + ci * input.plane
        for ky in 0..<k {
            for kx in 0..<k {
                var dst = col + ((ci * k + ky) * k + kx) * tileWidth
                var n = columns.lowerBound
                while n < columns.upperBound {
                    let oy = n / outputWidth, ox0 = n - oy * outputWidth
                    let run = min(outputWidth - ox0, columns.upperBound - n)
                    let iy = oy * s - p + ky
                    if iy < 0 || iy >= h {
                        dst.update(repeating: 0, count: run)
                    } else {
                        // Valid j: 0 ≤ (ox0 + j)·s − p + kx < w.
                        let first = ox0 * s - p + kx
                        let lo = min(run, first >= 0 ? 0 : (-first + s - 1) / s)
                        let hi = max(lo, min(run, first < w ? (w - 1 - first) / s + 1 : 0))
                        let src = plane + iy * w + first
                        if lo > 0 { dst.update(repeating: 0, count: lo) }
                        if s == 1 {
                            (dst + lo).update(from: src + lo, count: hi - lo)
                        } else if s == 2 {
                            // Even lanes of 16 contiguous inputs, while all 16 lie inside the row.
                            var j = lo
                            while j + 8 <= hi && first + 2 * j + 16 <= w {
                                let pair = UnsafeRawPointer(src + 2 * j).loadUnaligned(as: SIMD16<Float>.self)
                                UnsafeMutableRawPointer(dst + j).storeBytes(of: pair.evenHalf, as: SIMD8<Float>.self)
                                j += 8
                            }
                            while j < hi {
                                dst[j] = src[2 * j]
                                j += 1
                            }
                        } else {
                            for j in lo..<hi { dst[j] = src[j * s] }
                        }
                        if hi < run { (dst + hi).update(repeating: 0, count: run - hi) }
                    }
                    dst += run
                    n += run
                }
            }
        }
    }
}

/// `out[c, j] = act(out[c, j] + bias[c] + residual[c, j])` over a block of rows and columns.
@inline(__always)
func applyEpilogue(
    _ epilogue: Epilogue, bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, plane: Int,
    rows: Range<Int>, columns: Range<Int>
) {
    for c in rows {
        let at = c * plane + columns.lowerBound
        epilogueRow(
            epilogue, UnsafePointer(output + at), bias: bias[c], residual: epilogue.residual.map { UnsafePointer($0.data + at) },
            into: output + at, count: columns.count)
    }
}

/// `out[j] = act(x[j] + bias + residual[j])` for one run of `count` values (`x` may be `out`).
@inline(__always)
func epilogueRow(
    _ epilogue: Epilogue, _ x: UnsafePointer<Float>, bias b: Float, residual: UnsafePointer<Float>?,
    into out: UnsafeMutablePointer<Float>, count: Int
) {
    if let residual {
        if epilogue.relu {
            for j in 0..<count { out[j] = max(x[j] + b + residual[j], 0) }
        } else {
            for j in 0..<count { out[j] = x[j] + b + residual[j] }
        }
    } else if epilogue.relu {
        for j in 0..<count { out[j] = max(x[j] + b, 0) }
    } else {
        for j in 0..<count { out[j] = x[j] + b }
    }
}
