/// Everything the preprocessor needs for one resize geometry — crop size to scaled size — built
/// once and reused for every frame with that geometry: the Lanczos taps of both passes and the
/// scratch memory. Running it allocates nothing.
///
/// The resize is separable and done in 8 bits, as Pillow does: a horizontal pass over the crop rows
/// that the vertical taps read, rounded and clamped to UInt8 into a planar scratch image, then a
/// vertical pass rounded and clamped to UInt8 again, mapped through the normalisation table into
/// the output tensor.
///
/// With several threads each pass is split into contiguous bands of rows (the vertical pass reads
/// the horizontal pass's output, so one waits for the other); every output byte is computed by the
/// same arithmetic as with one thread, so the result does not depend on the thread count.
final class ResamplePlan {
    /// Crop width and height, scaled width and height.
    let cropWidth: Int, cropHeight: Int, outWidth: Int, outHeight: Int
    /// Parts each pass is split into, one per worker of the pool it runs on.
    let threads: Int

    private let horizontal: Taps
    private let vertical: Taps
    /// Crop rows the vertical taps read, `rows.lowerBound ..< rows.upperBound`.
    private let rows: Range<Int>
    /// Planar R, G, B scratch, `3 · rows.count · outWidth` bytes: the horizontally resized rows.
    private let scratch: UnsafeMutablePointer<UInt8>
    /// One output row's sums for the vertical pass, per thread (`threads · outWidth`).
    private let sums: UnsafeMutablePointer<Int32>
    /// Byte offset of each crop column inside a frame row (filled per frame: depends on crop.x).
    private let columnOffsets: UnsafeMutablePointer<Int>
    /// Byte offset of each read crop row inside the frame (filled per frame: depends on crop.y).
    private let rowOffsets: UnsafeMutablePointer<Int>

    /// `ResampleTaps` copied into pointers for the inner loops.
    private struct Taps {
        let stride: Int
        let first: UnsafeMutablePointer<Int>
        let count: UnsafeMutablePointer<Int>
        let weights: UnsafeMutablePointer<Int32>

        init(_ taps: ResampleTaps) {
            stride = taps.stride
            first = .allocate(capacity: taps.outSize)
            first.initialize(from: taps.first, count: taps.outSize)
            count = .allocate(capacity: taps.outSize)
            count.initialize(from: taps.count, count: taps.outSize)
            weights = .allocate(capacity: taps.weights.count)
            weights.initialize(from: taps.weights, count: taps.weights.count)
        }

        func deallocate() {
            first.deallocate()
            count.deallocate()
            weights.deallocate()
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
        horizontal = Taps(h)
        vertical = Taps(v)
        rows = v.span
        scratch = .allocate(capacity: 3 * rows.count * outWidth)
        scratch.initialize(repeating: 0, count: 3 * rows.count * outWidth)
        sums = .allocate(capacity: self.threads * outWidth)
        sums.initialize(repeating: 0, count: self.threads * outWidth)
        columnOffsets = .allocate(capacity: cropWidth)
        columnOffsets.initialize(repeating: 0, count: cropWidth)
        rowOffsets = .allocate(capacity: cropHeight)
        rowOffsets.initialize(repeating: 0, count: cropHeight)
    }

    deinit {
        horizontal.deallocate()
        vertical.deallocate()
        scratch.deallocate()
        sums.deallocate()
        columnOffsets.deallocate()
        rowOffsets.deallocate()
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
        let bpp = format.bytesPerPixel
        for i in 0 ..< cropWidth { columnOffsets[i] = min(max(cropX + i, 0), width - 1) * bpp }
        for i in rows { rowOffsets[i] = min(max(cropY + i, 0), height - 1) * rowStride }
        let source = frame.assumingMemoryBound(to: UInt8.self)
        let horizontal = HorizontalBands(plan: self, source: source, format: format)
        let vertical = VerticalBands(plan: self, destination: destination, plane: plane, rowPitch: rowPitch, lookup: lookup)
        if let pool {
            pool.run(horizontal)
            pool.run(vertical)
        } else {
            horizontal.run(worker: 0)
            vertical.run(worker: 0)
        }
    }

    /// Worker `w` resizes band `w` of the read rows horizontally.
    private struct HorizontalBands: WorkerJob {
        let plan: ResamplePlan, source: UnsafePointer<UInt8>, format: PixelFormat

        func run(worker: Int) {
            let rows = ComputeContext.part(worker, of: plan.threads, count: plan.rows.count)
            // Constant channel offsets per call, so that each loop is compiled for its format.
            switch format {
            case .rgb8: plan.horizontalPass(source, rows: rows, red: 0, green: 1, blue: 2)
            case .bgra8: plan.horizontalPass(source, rows: rows, red: 2, green: 1, blue: 0)
            }
        }
    }

    /// Worker `w` resizes band `w` of the output rows vertically, with its own row of sums.
    private struct VerticalBands: WorkerJob {
        let plan: ResamplePlan, destination: UnsafeMutablePointer<Float>, plane: Int, rowPitch: Int
        let lookup: UnsafePointer<Float>

        func run(worker: Int) {
            plan.verticalPass(
                rows: ComputeContext.part(worker, of: plan.threads, count: plan.outHeight), sums: plan.sums + worker * plan.outWidth,
                destination: destination, plane: plane, rowPitch: rowPitch, lookup: lookup)
        }
    }

    /// Horizontal pass over the read rows `band` (indices into `rows`).
    @inline(__always)
    private func horizontalPass(_ source: UnsafePointer<UInt8>, rows band: Range<Int>, red: Int, green: Int, blue: Int) {
        let shift = ResampleTaps.precisionBits, bias = ResampleTaps.bias
        let planeBytes = rows.count * outWidth
        for r in band {
            let line = source + rowOffsets[rows.lowerBound + r]
            let out = scratch + r * outWidth
            for x in 0 ..< outWidth {
                let first = horizontal.first[x], weights = horizontal.weights + x * horizontal.stride
                var sr = bias, sg = bias, sb = bias
                for k in 0 ..< horizontal.count[x] {
                    let pixel = line + columnOffsets[first + k], w = weights[k]
                    sr &+= Int32(pixel[red]) &* w
                    sg &+= Int32(pixel[green]) &* w
                    sb &+= Int32(pixel[blue]) &* w
                }
                out[x] = UInt8(clamping: sr >> shift)
                out[planeBytes + x] = UInt8(clamping: sg >> shift)
                out[2 * planeBytes + x] = UInt8(clamping: sb >> shift)
            }
        }
    }

    /// Vertical pass for output rows `band`, summing in `sums` (`outWidth` values of its own).
    private func verticalPass(
        rows band: Range<Int>, sums: UnsafeMutablePointer<Int32>, destination: UnsafeMutablePointer<Float>, plane: Int,
        rowPitch: Int, lookup: UnsafePointer<Float>
    ) {
        let shift = ResampleTaps.precisionBits, bias = ResampleTaps.bias
        let planeBytes = rows.count * outWidth
        for y in band {
            let first = vertical.first[y] - rows.lowerBound, weights = vertical.weights + y * vertical.stride
            for c in 0 ..< 3 {
                sums.update(repeating: bias, count: outWidth)
                let channel = scratch + c * planeBytes
                for k in 0 ..< vertical.count[y] {
                    let line = channel + (first + k) * outWidth, w = weights[k]
                    for x in 0 ..< outWidth { sums[x] &+= Int32(line[x]) &* w }
                }
                let out = destination + c * plane + y * rowPitch, table = lookup + c * 256
                for x in 0 ..< outWidth { out[x] = table[Int(UInt8(clamping: sums[x] >> shift))] }
            }
        }
    }
}
