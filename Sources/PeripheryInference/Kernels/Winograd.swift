/// Winograd F(4×4, 3×3) for 3×3, stride 1, padding 1 convolutions (Lavin & Gray, interpolation
/// points 0, ±1, ±2, ∞).
///
/// Each 4×4 output tile is `Aᵀ [ Σ_ci (G g Gᵀ) ⊙ (Bᵀ d Bᵀᵀ) ] A` for the 6×6 input patch `d` at
/// `(4·ty − 1, 4·tx − 1)`: 36 multiplies per tile and channel pair instead of 144. The sum over input
/// channels is 36 independent GEMMs, `M[ξ] [Cout × T] = U[ξ] [Cout × Cin] · V[ξ] [Cin × T]` over the
/// T tiles, run through OpenBLAS. Weights are transformed once at load (in Double).
struct WinogradConvolution: Sendable {
    let name: String
    let inChannels: Int
    let outChannels: Int
    /// `U[ξ][co][ci]`, ξ = 6·row + column of the transformed 6×6 kernel: `[36, Cout, Cin]`.
    let transformedWeights: [Float]
    /// `[Cout]`.
    let bias: [Float]

    /// Tile edge of the output.
    static let tile = 4
    /// Transformed tile edge (tile + kernel − 1).
    static let alpha = 6

    /// Fewest 4×4 output tiles for which Winograd pays: on smaller maps the 36 GEMMs are too skinny,
    /// and streaming the transformed weights (4× the direct ones: 38 MB for a 512→512 layer-4
    /// convolution with its 8 tiles) costs more than the direct convolution's arithmetic.
    static let minimumTiles = 16

    /// Whether a convolution runs as Winograd: 3×3, stride 1 (so padding 1 and the output the size
    /// of the input), on an output map of at least `minimumTiles` tiles.
    static func suits(kernel: Int, stride: Int, outputHeight: Int, outputWidth: Int) -> Bool {
        kernel == 3 && stride == 1 && ((outputHeight + tile - 1) / tile) * ((outputWidth + tile - 1) / tile) >= minimumTiles
    }

    /// Transforms the weights of a 3×3, stride 1, padding 1 convolution.
    init(_ conv: Convolution) {
        precondition(conv.kernelSize == 3 && conv.stride == 1 && conv.padding == 1, "\(conv.name): Winograd needs 3×3/s1/p1")
        let g: [[Double]] = [
            [1.0 / 4, 0, 0], [-1.0 / 6, -1.0 / 6, -1.0 / 6], [-1.0 / 6, 1.0 / 6, -1.0 / 6],
            [1.0 / 24, 1.0 / 12, 1.0 / 6], [1.0 / 24, -1.0 / 12, 1.0 / 6], [0, 0, 1],
        ]
        let (cin, cout) = (conv.inChannels, conv.outChannels)
        var u = [Float](repeating: 0, count: 36 * cout * cin)
        for co in 0..<cout {
            for ci in 0..<cin {
                let w = (0..<9).map { Double(conv.weights[(co * cin + ci) * 9 + $0]) }
                // G·w (6×3), then (G·w)·Gᵀ (6×6).
                var gw = [Double](repeating: 0, count: 18)
                for r in 0..<6 { for c in 0..<3 { gw[r * 3 + c] = (0..<3).reduce(0) { $0 + g[r][$1] * w[$1 * 3 + c] } } }
                for r in 0..<6 {
                    for c in 0..<6 {
                        let value = (0..<3).reduce(0) { $0 + gw[r * 3 + $1] * g[c][$1] }
                        u[((r * 6 + c) * cout + co) * cin + ci] = Float(value)
                    }
                }
            }
        }
        name = conv.name
        inChannels = cin
        outChannels = cout
        transformedWeights = u
        bias = conv.bias
    }
}

/// How a Winograd convolution on one map size is split between workers.
struct WinogradPlan {
    /// Tiles per row of tiles.
    let tilesX: Int
    /// Rows of tiles.
    let tilesY: Int
    /// Independent blocks of tile rows, each transformed, multiplied and inverse-transformed by one
    /// worker while its buffers are still in cache; 0 when the map is too small to split that way
    /// (then each phase is split between workers instead).
    let blocks: Int

    /// Tiles per block the GEMMs should see: enough to amortise streaming U[ξ] through the cache.
    static let targetBlockTiles = 96

    /// Most tiles a map may have and still run without blocks. Up to here the phases split between
    /// workers win: each worker streams only its share of U (the 36 positions split, not every
    /// worker all of U) into GEMMs twice as wide, and V and M stay small (the BEV neck's 41×80 maps,
    /// 220 tiles; measurements in docs/results/benchmarks.md).
    static let maximumUnblockedTiles = 256

    init(height: Int, width: Int, threads: Int) {
        tilesX = (width + 3) / 4
        tilesY = (height + 3) / 4
        let tiles = tilesX * tilesY
        let wanted = max(1, (tiles + WinogradPlan.targetBlockTiles / 2) / WinogradPlan.targetBlockTiles)
        let rounded = ((wanted + threads - 1) / threads) * threads
        blocks = tilesY >= 2 * threads && tiles > WinogradPlan.maximumUnblockedTiles ? min(rounded, tilesY) : 0
    }

    /// Tile rows of block `index`.
    func rows(ofBlock index: Int) -> Range<Int> { ComputeContext.part(index, of: blocks, count: tilesY) }

    /// Largest number of tiles one buffer holds: a block, or the whole map without blocks.
    var bufferTiles: Int { blocks == 0 ? tilesX * tilesY : ((tilesY + blocks - 1) / blocks) * tilesX }
}

extension ComputeContext {
    /// Runs a Winograd convolution `input [Cin, H, W]` → `output [Cout, H, W]` with the epilogue.
    ///
    /// Large maps are cut into blocks of tile rows that each worker takes through all three phases
    /// on its own buffers, so transformed data stays in cache; small maps run each phase split
    /// between workers (input channels, the 36 GEMMs, output channels) on shared buffers.
    ///
    /// - Parameters:
    ///   - transformed: per worker (blocks) or one shared (no blocks, `transformed[0]`) scratch of
    ///     `36 · Cin · plan.bufferTiles` floats.
    ///   - products: likewise, `36 · Cout · plan.bufferTiles` floats.
    func convolve(
        _ conv: WinogradConvolution, _ input: Tensor, into output: Tensor, _ epilogue: Epilogue,
        transformed: [UnsafeMutablePointer<Float>], products: [UnsafeMutablePointer<Float>]
    ) {
        precondition(
            input.channels == conv.inChannels && output.channels == conv.outChannels
                && input.height == output.height && input.width == output.width, "\(conv.name): shapes")
        let plan = WinogradPlan(height: input.height, width: input.width, threads: threads)
        /// What every phase needs; `transformed` and `products` are per worker (blocks) or shared (index 0).
        struct Layer {
            let context: ComputeContext, conv: WinogradConvolution, input, output: Tensor, epilogue: Epilogue
            let plan: WinogradPlan, transformed: [UnsafeMutablePointer<Float>], products: [UnsafeMutablePointer<Float>]
        }
        /// One block of tile rows through all three phases on its worker's buffers.
        struct Block: ItemJob {
            let layer: Layer

            func run(worker: Int, item block: Int) {
                let l = layer, rows = l.plan.rows(ofBlock: block), n = rows.count * l.plan.tilesX
                l.context.winogradInput(
                    l.conv, l.input, l.plan, rows: rows, channels: 0..<l.conv.inChannels,
                    into: l.transformed[worker], tiles: n, worker: worker)
                l.context.winogradProducts(l.conv, positions: 0..<36, l.transformed[worker], into: l.products[worker], tiles: n)
                l.context.winogradOutput(
                    l.conv, l.output, l.epilogue, l.plan, rows: rows, channels: 0..<l.conv.outChannels,
                    from: l.products[worker], tiles: n, worker: worker)
            }
        }
        /// One phase over the whole map, split by input channels, positions or output channels.
        struct Phase: RangeJob {
            enum Kind { case input, products, output }
            let layer: Layer, kind: Kind

            func run(worker: Int, range: Range<Int>) {
                let l = layer, all = 0..<l.plan.tilesY, n = l.plan.tilesX * l.plan.tilesY
                switch kind {
                case .input:
                    l.context.winogradInput(
                        l.conv, l.input, l.plan, rows: all, channels: range, into: l.transformed[0],
                        tiles: n, worker: worker)
                case .products:
                    l.context.winogradProducts(l.conv, positions: range, l.transformed[0], into: l.products[0], tiles: n)
                case .output:
                    l.context.winogradOutput(
                        l.conv, l.output, l.epilogue, l.plan, rows: all, channels: range,
                        from: l.products[0], tiles: n, worker: worker)
                }
            }
        }
        let layer = Layer(
            context: self, conv: conv, input: input, output: output, epilogue: epilogue, plan: plan,
            transformed: transformed, products: products)
        if plan.blocks > 0 {
            parallelFor(plan.blocks, Block(layer: layer))
        } else {
            parallelRanges(conv.inChannels, Phase(layer: layer, kind: .input))
            parallelRanges(36, Phase(layer: layer, kind: .products))
            parallelRanges(conv.outChannels, Phase(layer: layer, kind: .output))
        }
    }

    /// `V[ξ][ci][j] = (Bᵀ d B)[ξ]` for tile rows `rows` and input channels `channels`, where
    /// `j = (ty − rows.lowerBound)·tilesX + tx` and the buffer holds `tiles` tiles per (ξ, ci).
    private func winogradInput(
        _ conv: WinogradConvolution, _ input: Tensor, _ plan: WinogradPlan, rows tileRows: Range<Int>, channels: Range<Int>,
        into v: UnsafeMutablePointer<Float>, tiles: Int, worker: Int
    ) {
        let (h, w, tilesX) = (input.height, input.width, plan.tilesX)
        // x runs from −1 to 4·tilesX, split into its 4 phases (x + 1 = 4·k + p), so that every tap of
        // the x transform below is a contiguous vector over the tiles.
        let phase = tilesX + 1, row = 4 * phase, stride = conv.inChannels * tiles
        do {
            let rows = rowScratch(worker, count: 12 * row)
            let columns = rows + 6 * row
            for ci in channels {
                let plane = input.data + ci * input.plane
                for ty in tileRows {
                    // The 6 input rows of this tile row, zero outside the map.
                    for r in 0..<6 {
                        let y = 4 * ty - 1 + r
                        if y >= 0 && y < h {
                            splitPhases(plane + y * w, width: w, into: rows + r * row, phase: phase)
                        } else {
                            (rows + r * row).update(repeating: 0, count: row)
                        }
                    }
                    // Bᵀ over the rows, for every x at once.
                    inputTransform(taps(rows, stride: row), into: columns, outStride: row, count: row)
                    let target = v + ci * tiles + (ty - tileRows.lowerBound) * tilesX
                    for rho in 0..<6 {
                        // Taps 0…5 of tile tx: phases 0–3 at tx, then phases 0–1 at tx + 1.
                        let p = UnsafePointer(columns + rho * row)
                        inputTransform(
                            (p, p + phase, p + 2 * phase, p + 3 * phase, p + 1, p + phase + 1),
                            into: target + rho * 6 * stride, outStride: stride, count: tilesX)
                    }
                }
            }
        }
    }

    /// `M[ξ] [Cout × tiles] = U[ξ] [Cout × Cin] · V[ξ] [Cin × tiles]` for ξ in `positions`.
    private func winogradProducts(
        _ conv: WinogradConvolution, positions: Range<Int>, _ v: UnsafeMutablePointer<Float>,
        into m: UnsafeMutablePointer<Float>, tiles: Int
    ) {
        let (cin, cout) = (conv.inChannels, conv.outChannels)
        conv.transformedWeights.withUnsafeBufferPointer { weights in
            guard let u = weights.baseAddress else { return }
            for xi in positions {
                blas.sgemm(
                    m: cout, n: tiles, k: cin, a: u + xi * cout * cin, lda: cin,
                    b: v + xi * cin * tiles, ldb: tiles, beta: 0, c: m + xi * cout * tiles, ldc: tiles)
            }
        }
    }

    /// `Y = Aᵀ M A` for tile rows `rows` and output channels `channels`, cropped to the map, then
    /// bias, residual and ReLU; vectorised over the tiles of a row.
    private func winogradOutput(
        _ conv: WinogradConvolution, _ output: Tensor, _ epilogue: Epilogue, _ plan: WinogradPlan,
        rows tileRows: Range<Int>, channels: Range<Int>, from m: UnsafeMutablePointer<Float>, tiles: Int, worker: Int
    ) {
        let (h, w, tilesX) = (output.height, output.width, plan.tilesX)
        let stride = conv.outChannels * tiles
        conv.bias.withUnsafeBufferPointer { biasBuffer in
            guard let bias = biasBuffer.baseAddress else { return }
            do {
                let z = rowScratch(worker, count: 44 * tilesX)
                let y = z + 24 * tilesX, line = y + 16 * tilesX
                for co in channels {
                    let out = output.data + co * output.plane
                    let residual = epilogue.residual.map { $0.data + co * output.plane }
                    let b = bias[co]
                    for ty in tileRows {
                        let source = m + co * tiles + (ty - tileRows.lowerBound) * tilesX
                        // Z[a][c] = Σ_r Aᵀ[a][r] M[r][c], then Y[a][b] = Σ_c Z[a][c] A[c][b].
                        for c in 0..<6 {
                            outputTransform(source + c * stride, stride: 6 * stride, into: z + c * tilesX, outStride: 6 * tilesX, count: tilesX)
                        }
                        for a in 0..<4 {
                            outputTransform(z + a * 6 * tilesX, stride: tilesX, into: y + a * 4 * tilesX, outStride: tilesX, count: tilesX)
                        }
                        for a in 0..<4 where 4 * ty + a < h {
                            // Interleave the 4 column phases into one output row, then the epilogue.
                            let rowY = y + a * 4 * tilesX
                            for tx in 0..<tilesX {
                                line[4 * tx] = rowY[tx]
                                line[4 * tx + 1] = rowY[tilesX + tx]
                                line[4 * tx + 2] = rowY[2 * tilesX + tx]
                                line[4 * tx + 3] = rowY[3 * tilesX + tx]
                            }
                            let at = (4 * ty + a) * w
                            epilogueRow(epilogue, line, bias: b, residual: residual.map { UnsafePointer($0 + at) }, into: out + at, count: w)
                        }
                    }
                }
            }
        }
    }
}

/// Writes one input row, padded by a zero on the left and zeros past `width`, as its 4 phases:
/// `out[p·phase + k] = row[4·k + p − 1]` for `k < phase`.
@inline(__always)
private func splitPhases(_ row: UnsafePointer<Float>, width: Int, into out: UnsafeMutablePointer<Float>, phase: Int) {
    let p0 = out, p1 = out + phase, p2 = out + 2 * phase, p3 = out + 3 * phase
    p0[0] = 0
    // Groups of 16 padded values, x + 1 = 16·g … 16·g + 15, read as one vector from row[16·g − 1];
    // the first group starts at the padding zero, so the vectors start at g = 1.
    var g = 1
    while 16 * g + 15 <= width && 4 * g + 3 < phase {
        let x = UnsafeRawPointer(row + 16 * g - 1).loadUnaligned(as: SIMD16<Float>.self)
        let even = x.evenHalf, odd = x.oddHalf
        UnsafeMutableRawPointer(p0 + 4 * g).storeBytes(of: even.evenHalf, as: SIMD4<Float>.self)
        UnsafeMutableRawPointer(p1 + 4 * g).storeBytes(of: odd.evenHalf, as: SIMD4<Float>.self)
        UnsafeMutableRawPointer(p2 + 4 * g).storeBytes(of: even.oddHalf, as: SIMD4<Float>.self)
        UnsafeMutableRawPointer(p3 + 4 * g).storeBytes(of: odd.oddHalf, as: SIMD4<Float>.self)
        g += 1
    }
    // The first group's other values and everything after the vectors.
    @inline(__always) func scalar(_ i: Int) { out[(i & 3) * phase + (i >> 2)] = i <= width ? row[i - 1] : 0 }
    for i in 1..<min(16, 4 * phase) { scalar(i) }
    for i in stride(from: 16 * g, to: 4 * phase, by: 1) { scalar(i) }
}

/// Six vectors `base + r·stride`, r = 0…5.
@inline(__always)
private func taps(_ base: UnsafePointer<Float>, stride: Int) -> Taps {
    (base, base + stride, base + 2 * stride, base + 3 * stride, base + 4 * stride, base + 5 * stride)
}

private typealias Taps = (
    UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>
)

/// Eight lanes at a time: the transforms read six streams and write six (or four), which LLVM does
/// not vectorise on its own (too many possibly aliasing pointers), so the lanes are explicit.
private typealias Lanes = SIMD8<Float>

@inline(__always)
private func load(_ p: UnsafePointer<Float>, _ i: Int) -> Lanes {
    UnsafeRawPointer(p + i).loadUnaligned(as: Lanes.self)
}

@inline(__always)
private func store(_ v: Lanes, _ p: UnsafeMutablePointer<Float>, _ i: Int) {
    UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: Lanes.self)
}

/// `Bᵀ · d` for `count` 6-vectors whose components are the vectors `d`, into 6 vectors at `y + ρ·outStride`.
@inline(__always)
private func inputTransform(_ d: Taps, into y: UnsafeMutablePointer<Float>, outStride: Int, count: Int) {
    let y0 = y, y1 = y + outStride, y2 = y + 2 * outStride, y3 = y + 3 * outStride, y4 = y + 4 * outStride, y5 = y + 5 * outStride
    var i = 0
    while i + Lanes.scalarCount <= count {
        let d0 = load(d.0, i), d1 = load(d.1, i), d2 = load(d.2, i), d3 = load(d.3, i), d4 = load(d.4, i), d5 = load(d.5, i)
        store(4 * d0 - 5 * d2 + d4, y0, i)
        store(-4 * d1 - 4 * d2 + d3 + d4, y1, i)
        store(4 * d1 - 4 * d2 - d3 + d4, y2, i)
        store(-2 * d1 - d2 + 2 * d3 + d4, y3, i)
        store(2 * d1 - d2 - 2 * d3 + d4, y4, i)
        store(4 * d1 - 5 * d3 + d5, y5, i)
        i += Lanes.scalarCount
    }
    while i < count {
        let d0 = d.0[i], d1 = d.1[i], d2 = d.2[i], d3 = d.3[i], d4 = d.4[i], d5 = d.5[i]
        y0[i] = 4 * d0 - 5 * d2 + d4
        y1[i] = -4 * d1 - 4 * d2 + d3 + d4
        y2[i] = 4 * d1 - 4 * d2 - d3 + d4
        y3[i] = -2 * d1 - d2 + 2 * d3 + d4
        y4[i] = 2 * d1 - d2 - 2 * d3 + d4
        y5[i] = 4 * d1 - 5 * d3 + d5
        i += 1
    }
}

/// `Aᵀ · x` over 6 vectors of `count` elements (vector r at `x + r·stride`), into 4 vectors at `y + a·outStride`.
@inline(__always)
private func outputTransform(_ x: UnsafePointer<Float>, stride: Int, into y: UnsafeMutablePointer<Float>, outStride: Int, count: Int) {
    let x0 = x, x1 = x + stride, x2 = x + 2 * stride, x3 = x + 3 * stride, x4 = x + 4 * stride, x5 = x + 5 * stride
    let y0 = y, y1 = y + outStride, y2 = y + 2 * outStride, y3 = y + 3 * outStride
    var i = 0
    while i + Lanes.scalarCount <= count {
        let s0 = load(x0, i), s1 = load(x1, i), s2 = load(x2, i), s3 = load(x3, i), s4 = load(x4, i), s5 = load(x5, i)
        store(s0 + s1 + s2 + s3 + s4, y0, i)
        store(s1 - s2 + 2 * (s3 - s4), y1, i)
        store(s1 + s2 + 4 * (s3 + s4), y2, i)
        store(s1 - s2 + 8 * (s3 - s4) + s5, y3, i)
        i += Lanes.scalarCount
    }
    while i < count {
        let s0 = x0[i], s1 = x1[i], s2 = x2[i], s3 = x3[i], s4 = x4[i], s5 = x5[i]
        y0[i] = s0 + s1 + s2 + s3 + s4
        y1[i] = s1 - s2 + 2 * (s3 - s4)
        y2[i] = s1 + s2 + 4 * (s3 + s4)
        y3[i] = s1 - s2 + 8 * (s3 - s4) + s5
        i += 1
    }
}
