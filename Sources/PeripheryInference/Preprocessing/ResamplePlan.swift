/// Everything the preprocessor needs for one resize geometry — crop size to scaled size — built
/// once and reused for every frame with that geometry: the Lanczos taps of both passes, laid out
/// for the vector loops, and each worker's scratch memory. Running it allocates nothing.
///
/// The resize is separable and done in 8 bits, as Pillow does: a horizontal pass over the crop rows
/// that the vertical taps read, rounded and clamped to UInt8, then a vertical pass rounded and
/// clamped to UInt8 again, mapped through the normalisation table into the output tensor. Every sum
/// is Pillow's `bias + Σ sample · weight` in wrapping Int32 arithmetic, only split differently over
/// the vector lanes (see `PackedTaps`), so the bytes are those of Pillow's scalar loops (the tests
/// compare the two on random geometries).
///
/// The two passes are interleaved: the horizontal pass runs over blocks of `blockRows` crop rows
/// (the rows are the vector lanes, so that the lanes share one weight) into a ring of resized rows
/// just deep enough for the vertical taps, which then read it while it is still in cache. With
/// several threads each worker takes a contiguous band of output rows and resizes the crop rows its
/// band reads (a few rows at the band edges are resized by both neighbours); every output byte is
/// computed by the same arithmetic whatever the thread count.
final class ResamplePlan {
    /// Crop width and height, scaled width and height.
    let cropWidth: Int, cropHeight: Int, outWidth: Int, outHeight: Int
    /// Parts each frame is split into, one per worker of the pool it runs on.
    let threads: Int

    /// Crop rows resized horizontally at a time: two 4-lane vectors.
    static let blockRows = 8
    /// Output columns the vertical pass sums at a time: eight 4-lane vectors.
    static let columnBlock = 32

    /// `outWidth` rounded up to `columnBlock`; the columns past `outWidth` have no taps.
    private let paddedWidth: Int
    /// Crop columns the horizontal taps read.
    private let columns: Range<Int>
    /// Crop rows the vertical taps read.
    private let rows: Range<Int>
    private let horizontal: PackedTaps
    private let vertical: PackedTaps
    /// For each output row y, the lowest crop row that rows ≥ y read and one past the highest crop
    /// row that rows ≤ y read: the window the ring must hold when row y is summed.
    private let windowLow: UnsafeMutablePointer<Int>
    private let windowHigh: UnsafeMutablePointer<Int>
    /// Rows in each worker's ring of horizontally resized rows.
    private let ringRows: Int

    /// Per worker: the block of crop rows as packed samples (see `PackedTaps`), byte-major, two
    /// vectors (rows 0–3, 4–7) per byte of a row.
    private let blocks: UnsafeMutablePointer<SIMD4<Int32>>
    private let blockVectors: Int
    /// Per worker: `ringRows` resized rows, each three channel planes of `paddedWidth` packed samples.
    private let rings: UnsafeMutablePointer<SIMD4<Int32>>
    private let ringVectors: Int
    /// Per worker: four output columns' packed results (channel, row half, column) before they are
    /// transposed into the ring.
    private let tiles: UnsafeMutablePointer<SIMD4<Int32>>
    /// Per worker: the ring row of each vertical tap of the row being summed.
    private let tapRows: UnsafeMutablePointer<UnsafeMutablePointer<SIMD4<Int32>>>

    /// One resize direction's taps as the vector loops read them.
    ///
    /// A weight `w` (|w| < 2²³) is split into `a = w >> 15` and `b = w & 0x7FFF` and stored as the
    /// Int16 pair (`b`, `128 · a`); a sample `p` is stored as the Int16 pair (`p`, `256 · (p − 128)`).
    /// The pairwise multiply-add of the two (SSE2 `pmaddwd`) is `p · w − 2²² · a`, exact in Int32,
    /// so each sum starts from `bias + 2²² · Σ a` instead of `bias` to come out as Pillow's.
    private struct PackedTaps {
        let stride: Int
        /// First input read by each output, relative to the first input read at all.
        let first: UnsafeMutablePointer<Int>
        let count: UnsafeMutablePointer<Int>
        /// `stride` packed weights per output, each repeated over the four lanes.
        let weights: UnsafeMutablePointer<SIMD4<Int32>>
        /// Each output's starting sum, repeated over the four lanes.
        let start: UnsafeMutablePointer<SIMD4<Int32>>

        /// Packs `taps` for `outputs` outputs (≥ `taps.outSize`; the extra ones have no taps) whose
        /// inputs are numbered from `origin`.
        init(_ taps: ResampleTaps, outputs: Int, origin: Int) {
            stride = taps.stride
            first = .allocate(capacity: outputs)
            first.initialize(repeating: 0, count: outputs)
            count = .allocate(capacity: outputs)
            count.initialize(repeating: 0, count: outputs)
            weights = .allocate(capacity: outputs * stride)
            weights.initialize(repeating: .zero, count: outputs * stride)
            start = .allocate(capacity: outputs)
            start.initialize(repeating: SIMD4(repeating: ResampleTaps.bias), count: outputs)
            for i in 0..<taps.outSize {
                first[i] = taps.first[i] - origin
                count[i] = taps.count[i]
                var high: Int32 = 0
                for k in 0..<taps.count[i] {
                    let w = taps.weights[i * stride + k], a = w >> 15
                    precondition((-256..<256).contains(a), "resample weight \(w) is beyond ±2²³")
                    weights[i * stride + k] = SIMD4(repeating: (w & 0x7FFF) | (a << 23))
                    high &+= a
                }
                start[i] = SIMD4(repeating: ResampleTaps.bias &+ high << ResampleTaps.precisionBits)
            }
        }

        func deallocate() {
            first.deallocate()
            count.deallocate()
            weights.deallocate()
            start.deallocate()
        }
    }

    /// Builds the taps and scratch for resizing `cropWidth × cropHeight` to `outWidth × outHeight`
    /// on a pool of `threads` workers.
    init(cropWidth: Int, cropHeight: Int, outWidth: Int, outHeight: Int, threads: Int = 1) {
        self.cropWidth = cropWidth
        self.cropHeight = cropHeight
        self.outWidth = outWidth
        self.outHeight = outHeight
        self.threads = max(1, threads)
        let h = ResampleTaps(inSize: cropWidth, outSize: outWidth)
        let v = ResampleTaps(inSize: cropHeight, outSize: outHeight)
        let block = ResamplePlan.columnBlock
        paddedWidth = (outWidth + block - 1) / block * block
        columns = h.span
        rows = v.span
        horizontal = PackedTaps(h, outputs: paddedWidth, origin: columns.lowerBound)
        vertical = PackedTaps(v, outputs: outHeight, origin: 0)

        windowLow = .allocate(capacity: outHeight)
        windowHigh = .allocate(capacity: outHeight)
        var low = rows.upperBound, high = rows.lowerBound
        for y in (0..<outHeight).reversed() {
            if v.count[y] > 0 { low = min(low, v.first[y]) }
            (windowLow + y).initialize(to: low)
        }
        for y in 0..<outHeight {
            if v.count[y] > 0 { high = max(high, v.first[y] + v.count[y]) }
            (windowHigh + y).initialize(to: high)
        }
        // A block is resized only while the ring lacks a row of the current window, and it
        // overwrites rows a full ring below it: none of them is in the window (of at most
        // `high − low` rows) as long as the ring holds that many rows plus one block.
        var window = 0
        for y in 0..<outHeight { window = max(window, windowHigh[y] - windowLow[y]) }
        ringRows = window + ResamplePlan.blockRows

        // Sized for four bytes per pixel (BGRA), so that one plan serves both formats.
        blockVectors = 2 * columns.count * 4
        blocks = .allocate(capacity: self.threads * blockVectors)
        blocks.initialize(repeating: .zero, count: self.threads * blockVectors)
        ringVectors = ringRows * 3 * paddedWidth / 4
        rings = .allocate(capacity: self.threads * ringVectors)
        rings.initialize(repeating: .zero, count: self.threads * ringVectors)
        tiles = .allocate(capacity: self.threads * 24)
        tiles.initialize(repeating: .zero, count: self.threads * 24)
        tapRows = .allocate(capacity: self.threads * vertical.stride)
        tapRows.initialize(repeating: rings, count: self.threads * vertical.stride)
    }

    deinit {
        horizontal.deallocate()
        vertical.deallocate()
        windowLow.deallocate()
        windowHigh.deallocate()
        blocks.deallocate()
        rings.deallocate()
        tiles.deallocate()
        tapRows.deallocate()
    }

    /// Whether this plan resizes `cropWidth × cropHeight` to `outWidth × outHeight`.
    func matches(cropWidth: Int, cropHeight: Int, outWidth: Int, outHeight: Int) -> Bool {
        (self.cropWidth, self.cropHeight, self.outWidth, self.outHeight) == (cropWidth, cropHeight, outWidth, outHeight)
    }

    /// Resizes the crop at (`cropX`, `cropY`) of `frame` into `destination` (the top-left output
    /// pixel of channel 0; channels `plane` floats apart, rows `rowPitch` floats apart), mapping each
    /// 8-bit result through `lookup` (`3 × 256` floats, channel-major).
    ///
    /// Crop pixels outside the frame read the nearest frame pixel (edge clamp).
    func run(
        frame: UnsafeRawPointer, width: Int, height: Int, rowStride: Int, format: PixelFormat,
        cropX: Int, cropY: Int, destination: UnsafeMutablePointer<Float>, plane: Int, rowPitch: Int,
        lookup: UnsafePointer<Float>, pool: WorkerPool? = nil
    ) {
        precondition((pool?.workers ?? 1) == threads, "resample plan for \(threads) threads run on \(pool?.workers ?? 1)")
        let job = Bands(
            plan: self,
            frame: Frame(base: frame.assumingMemoryBound(to: UInt8.self), width: width, height: height, rowStride: rowStride, cropX: cropX, cropY: cropY),
            format: format, destination: destination, plane: plane, rowPitch: rowPitch, lookup: lookup)
        if let pool { pool.run(job) } else { job.run(worker: 0) }
    }

    /// The frame being resized and where the crop lies in it.
    private struct Frame {
        let base: UnsafePointer<UInt8>
        let width: Int, height: Int, rowStride: Int, cropX: Int, cropY: Int

        /// The first byte of crop row `row` (the nearest frame row when outside the frame).
        func row(_ row: Int) -> UnsafePointer<UInt8> { base + min(max(cropY + row, 0), height - 1) * rowStride }
    }

    /// Worker `w` resizes output rows band `w`.
    private struct Bands: WorkerJob {
        let plan: ResamplePlan, frame: Frame, format: PixelFormat
        let destination: UnsafeMutablePointer<Float>, plane: Int, rowPitch: Int, lookup: UnsafePointer<Float>

        func run(worker: Int) {
            let band = ComputeContext.part(worker, of: plan.threads, count: plan.outHeight)
            // Constant pixel layout per call, so that each loop is compiled for its format.
            switch format {
            case .rgb8:
                plan.resize(band, worker: worker, frame: frame, bytesPerPixel: 3, red: 0, green: 1, blue: 2, job: self)
            case .bgr8:
                plan.resize(band, worker: worker, frame: frame, bytesPerPixel: 3, red: 2, green: 1, blue: 0, job: self)
            case .bgra8:
                plan.resize(band, worker: worker, frame: frame, bytesPerPixel: 4, red: 2, green: 1, blue: 0, job: self)
            }
        }
    }

    /// Output rows `band`, resizing crop rows into the worker's ring as the vertical taps need them.
    @inline(__always)
    private func resize(
        _ band: Range<Int>, worker: Int, frame: Frame, bytesPerPixel bpp: Int, red: Int, green: Int, blue: Int, job: Bands
    ) {
        guard !band.isEmpty else { return }
        let ring = rings + worker * ringVectors
        var next = windowLow[band.lowerBound]
        for y in band {
            while next < windowHigh[y] {
                horizontalBlock(top: next, frame: frame, worker: worker, ring: ring, bpp: bpp, red: red, green: green, blue: blue)
                next += ResamplePlan.blockRows
            }
            verticalRow(y, worker: worker, ring: ring, job: job)
        }
    }

    /// The ring row holding crop row `row`.
    @inline(__always)
    private func ringRow(_ ring: UnsafeMutablePointer<SIMD4<Int32>>, _ row: Int) -> UnsafeMutablePointer<SIMD4<Int32>> {
        ring + (row % ringRows) * (3 * paddedWidth / 4)
    }

    /// Resizes crop rows `top ..< top + blockRows` horizontally into the ring (rows past the read
    /// ones repeat the last of them; their results are never read).
    @inline(__always)
    private func horizontalBlock(
        top: Int, frame: Frame, worker: Int, ring: UnsafeMutablePointer<SIMD4<Int32>>, bpp: Int, red: Int, green: Int, blue: Int
    ) {
        let block = blocks + worker * blockVectors
        let last = rows.upperBound - 1
        convert(
            Lines(
                frame.row(min(top, last)), frame.row(min(top + 1, last)), frame.row(min(top + 2, last)),
                frame.row(min(top + 3, last)), frame.row(min(top + 4, last)), frame.row(min(top + 5, last)),
                frame.row(min(top + 6, last)), frame.row(min(top + 7, last))),
            frame: frame, into: block, bpp: bpp)

        let tile = tiles + worker * 24
        let planeVectors = paddedWidth / 4
        let targets = (
            ringRow(ring, top), ringRow(ring, top + 1), ringRow(ring, top + 2), ringRow(ring, top + 3),
            ringRow(ring, top + 4), ringRow(ring, top + 5), ringRow(ring, top + 6), ringRow(ring, top + 7)
        )
        for group in 0..<planeVectors {
            for lane in 0..<4 {
                let x = group * 4 + lane
                let n = horizontal.count[x], weights = horizontal.weights + x * horizontal.stride
                let pixels = block + horizontal.first[x] * bpp * 2
                let start = horizontal.start[x]
                var r0 = start, r1 = start, g0 = start, g1 = start, b0 = start, b1 = start
                // Pointers stepped rather than indexed: no overflow checks in the hottest loop.
                var p = pixels, weight = weights
                for _ in 0..<n {
                    let w = weight.pointee
                    r0 &+= multiplyAdd(p[2 * red], w)
                    r1 &+= multiplyAdd(p[2 * red + 1], w)
                    g0 &+= multiplyAdd(p[2 * green], w)
                    g1 &+= multiplyAdd(p[2 * green + 1], w)
                    b0 &+= multiplyAdd(p[2 * blue], w)
                    b1 &+= multiplyAdd(p[2 * blue + 1], w)
                    p += 2 * bpp
                    weight += 1
                }
                tile[lane] = packedResult(r0)
                tile[4 + lane] = packedResult(r1)
                tile[8 + lane] = packedResult(g0)
                tile[12 + lane] = packedResult(g1)
                tile[16 + lane] = packedResult(b0)
                tile[20 + lane] = packedResult(b1)
            }
            // Lanes are rows in the tile and columns in the ring.
            for c in 0..<3 {
                let offset = c * planeVectors + group
                let upper = transposed(tile + c * 8), lower = transposed(tile + c * 8 + 4)
                targets.0[offset] = upper.0
                targets.1[offset] = upper.1
                targets.2[offset] = upper.2
                targets.3[offset] = upper.3
                targets.4[offset] = lower.0
                targets.5[offset] = lower.1
                targets.6[offset] = lower.2
                targets.7[offset] = lower.3
            }
        }
    }

    /// The eight frame rows of a block.
    private typealias Lines = (
        UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>,
        UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>
    )

    /// Packs the bytes of the read crop columns of eight rows into `block`: for the t-th byte from
    /// the first read column, `block[2t]` holds rows 0–3 and `block[2t + 1]` rows 4–7, as the
    /// sample pairs of `PackedTaps`.
    @inline(__always)
    private func convert(_ lines: Lines, frame: Frame, into block: UnsafeMutablePointer<SIMD4<Int32>>, bpp: Int) {
        let scalars = UnsafeMutableRawPointer(block).assumingMemoryBound(to: Int32.self)
        func scalar(_ t: Int, _ offset: Int) {
            let s = scalars + t * 8
            s[0] = packedSample(lines.0[offset])
            s[1] = packedSample(lines.1[offset])
            s[2] = packedSample(lines.2[offset])
            s[3] = packedSample(lines.3[offset])
            s[4] = packedSample(lines.4[offset])
            s[5] = packedSample(lines.5[offset])
            s[6] = packedSample(lines.6[offset])
            s[7] = packedSample(lines.7[offset])
        }
        // Columns inside the frame are contiguous bytes; those left and right of it repeat the
        // edge pixel.
        let low = min(max(columns.lowerBound, -frame.cropX), columns.upperBound)
        let high = max(min(columns.upperBound, frame.width - frame.cropX), low)
        func edge(_ range: Range<Int>) {
            for i in range {
                let column = min(max(frame.cropX + i, 0), frame.width - 1) * bpp
                for c in 0..<bpp { scalar((i - columns.lowerBound) * bpp + c, column + c) }
            }
        }
        edge(columns.lowerBound..<low)
        edge(high..<columns.upperBound)
        let origin = (frame.cropX + columns.lowerBound) * bpp
        var t = (low - columns.lowerBound) * bpp
        let end = (high - columns.lowerBound) * bpp
        while t + 16 <= end {
            let o = origin + t
            let p01 = zip8(load(lines.0, o), load(lines.1, o)), p23 = zip8(load(lines.2, o), load(lines.3, o))
            let p45 = zip8(load(lines.4, o), load(lines.5, o)), p67 = zip8(load(lines.6, o), load(lines.7, o))
            // Bytes 0–7 of the chunk, then 8–15, eight rows each.
            func half(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>, _ c: SIMD16<UInt8>, _ d: SIMD16<UInt8>, _ byte: Int) {
                let upper = zip16(a, b), lower = zip16(c, d)
                let q0 = zip32(upper.low, lower.low), q1 = zip32(upper.high, lower.high)
                expand(q0.low, into: block + (t + byte) * 2)
                expand(q0.high, into: block + (t + byte + 2) * 2)
                expand(q1.low, into: block + (t + byte + 4) * 2)
                expand(q1.high, into: block + (t + byte + 6) * 2)
            }
            half(p01.low, p23.low, p45.low, p67.low, 0)
            half(p01.high, p23.high, p45.high, p67.high, 8)
            t += 16
        }
        while t < end {
            scalar(t, origin + t)
            t += 1
        }
    }

    /// Vertical pass for output row `y` from the ring, through the lookup into the output.
    @inline(__always)
    private func verticalRow(_ y: Int, worker: Int, ring: UnsafeMutablePointer<SIMD4<Int32>>, job: Bands) {
        let n = vertical.count[y], first = vertical.first[y], weights = vertical.weights + y * vertical.stride
        let taps = tapRows + worker * vertical.stride
        for k in 0..<n { taps[k] = ringRow(ring, first + k) }
        let start = vertical.start[y]
        let planeVectors = paddedWidth / 4
        for c in 0..<3 {
            let out = job.destination + c * job.plane + y * job.rowPitch, table = job.lookup + c * 256
            for group in stride(from: 0, to: planeVectors, by: 8) {
                var s0 = start, s1 = start, s2 = start, s3 = start, s4 = start, s5 = start, s6 = start, s7 = start
                let offset = c * planeVectors + group
                for k in 0..<n {
                    let w = weights[k], line = taps[k] + offset
                    s0 &+= multiplyAdd(line[0], w)
                    s1 &+= multiplyAdd(line[1], w)
                    s2 &+= multiplyAdd(line[2], w)
                    s3 &+= multiplyAdd(line[3], w)
                    s4 &+= multiplyAdd(line[4], w)
                    s5 &+= multiplyAdd(line[5], w)
                    s6 &+= multiplyAdd(line[6], w)
                    s7 &+= multiplyAdd(line[7], w)
                }
                let x = group * 4
                write(s0, to: out, x: x, table: table)
                write(s1, to: out, x: x + 4, table: table)
                write(s2, to: out, x: x + 8, table: table)
                write(s3, to: out, x: x + 12, table: table)
                write(s4, to: out, x: x + 16, table: table)
                write(s5, to: out, x: x + 20, table: table)
                write(s6, to: out, x: x + 24, table: table)
                write(s7, to: out, x: x + 28, table: table)
            }
        }
    }

    /// Rounds four vertical sums to 8 bits and stores their table values at `out[x ...]`, those
    /// before `outWidth`.
    @inline(__always)
    private func write(_ sums: SIMD4<Int32>, to out: UnsafeMutablePointer<Float>, x: Int, table: UnsafePointer<Float>) {
        let v = clip8(sums)
        if x + 4 <= outWidth {
            out[x] = table[Int(v[0])]
            out[x + 1] = table[Int(v[1])]
            out[x + 2] = table[Int(v[2])]
            out[x + 3] = table[Int(v[3])]
        } else {
            for lane in 0..<max(0, outWidth - x) { out[x + lane] = table[Int(v[lane])] }
        }
    }
}

/// Pillow's sample `p` as the Int16 pair (`p`, `256 · (p − 128)`) of `ResamplePlan.PackedTaps`.
@inline(__always)
private func packedSample(_ p: UInt8) -> Int32 {
    Int32(p) | Int32(bitPattern: UInt32(p ^ 0x80) << 24)
}

/// Sums rounded to 8 bits (Pillow's `clip8`), packed as samples for the next pass.
@inline(__always)
private func packedResult(_ sums: SIMD4<Int32>) -> SIMD4<Int32> {
    let v = clip8(sums)
    return v | ((v ^ 0x80) &<< 24)
}

/// The Int32 lanes `a₀·b₀ + a₁·b₁` of the Int16 pairs of `a` and `b` (SSE2 `pmaddwd`; the
/// optimiser recognises this form, widening then adding neighbours, even with `b` in memory).
@inline(__always)
private func multiplyAdd(_ a: SIMD4<Int32>, _ b: SIMD4<Int32>) -> SIMD4<Int32> {
    let p = widened(unsafeBitCast(a, to: SIMD8<Int16>.self)) &* widened(unsafeBitCast(b, to: SIMD8<Int16>.self))
    // Lane by lane, not `evenHalf &+ oddHalf`: those generic accessors are not always inlined, and
    // a call per multiply-add is far slower (docs/results/benchmarks.md).
    return SIMD4(p[0] &+ p[1], p[2] &+ p[3], p[4] &+ p[5], p[6] &+ p[7])
}

/// `v` sign-extended, lane by lane (the generic conversion is not always inlined).
@inline(__always)
private func widened(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
    SIMD8(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
}

/// Sums shifted down and clamped to 0 ... 255 (Pillow's `clip8`), in plain lane arithmetic: the
/// generic `clamped` is not inlined.
@inline(__always)
private func clip8(_ sums: SIMD4<Int32>) -> SIMD4<Int32> {
    let v = sums &>> ResampleTaps.precisionBits
    let above = (SIMD4<Int32>(repeating: 255) &- v) &>> 31
    return ((v & ~(v &>> 31)) | above) & 255
}

/// The four vectors at `v` transposed: lane i of result j is lane j of `v[i]`.
@inline(__always)
private func transposed(
    _ v: UnsafePointer<SIMD4<Int32>>
) -> (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>) {
    let a = v[0], b = v[1], c = v[2], d = v[3]
    return (SIMD4(a[0], b[0], c[0], d[0]), SIMD4(a[1], b[1], c[1], d[1]), SIMD4(a[2], b[2], c[2], d[2]), SIMD4(a[3], b[3], c[3], d[3]))
}

/// Sixteen bytes at `base + offset`.
@inline(__always)
private func load(_ base: UnsafePointer<UInt8>, _ offset: Int) -> SIMD16<UInt8> {
    UnsafeRawPointer(base + offset).loadUnaligned(as: SIMD16<UInt8>.self)
}

/// The bytes of `a` and `b` interleaved: the first eight of each (`low`), the last eight (`high`).
@inline(__always)
private func zip8(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> (low: SIMD16<UInt8>, high: SIMD16<UInt8>) {
    (
        SIMD16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]),
        SIMD16(a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11], a[12], b[12], a[13], b[13], a[14], b[14], a[15], b[15])
    )
}

/// `zip8` of 2-byte units.
@inline(__always)
private func zip16(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> (low: SIMD16<UInt8>, high: SIMD16<UInt8>) {
    let x = unsafeBitCast(a, to: SIMD8<UInt16>.self), y = unsafeBitCast(b, to: SIMD8<UInt16>.self)
    return (
        unsafeBitCast(SIMD8(x[0], y[0], x[1], y[1], x[2], y[2], x[3], y[3]), to: SIMD16<UInt8>.self),
        unsafeBitCast(SIMD8(x[4], y[4], x[5], y[5], x[6], y[6], x[7], y[7]), to: SIMD16<UInt8>.self)
    )
}

/// `zip8` of 4-byte units.
@inline(__always)
private func zip32(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> (low: SIMD16<UInt8>, high: SIMD16<UInt8>) {
    let x = unsafeBitCast(a, to: SIMD4<UInt32>.self), y = unsafeBitCast(b, to: SIMD4<UInt32>.self)
    return (
        unsafeBitCast(SIMD4(x[0], y[0], x[1], y[1]), to: SIMD16<UInt8>.self),
        unsafeBitCast(SIMD4(x[2], y[2], x[3], y[3]), to: SIMD16<UInt8>.self)
    )
}

/// Expands two bytes' eight rows each (`v`: bytes 0–7 one byte's rows, 8–15 the next's) into
/// packed samples at `block[0 ..< 4]`: the bytes (p, 0, 0, p ^ 0x80) are `packedSample(p)` on a
/// little-endian machine (x86-64 and arm64, the package's targets).
@inline(__always)
private func expand(_ v: SIMD16<UInt8>, into block: UnsafeMutablePointer<SIMD4<Int32>>) {
    let samples = zip8(v, .zero), highs = zip8(.zero, v ^ SIMD16(repeating: 0x80))
    let first = zip16(samples.low, highs.low), second = zip16(samples.high, highs.high)
    block[0] = unsafeBitCast(first.low, to: SIMD4<Int32>.self)
    block[1] = unsafeBitCast(first.high, to: SIMD4<Int32>.self)
    block[2] = unsafeBitCast(second.low, to: SIMD4<Int32>.self)
    block[3] = unsafeBitCast(second.high, to: SIMD4<Int32>.self)
}
