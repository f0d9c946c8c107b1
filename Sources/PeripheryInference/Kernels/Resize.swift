extension ComputeContext {
    /// FPN top-down step: `target[c, y, x] += source[c, ⌊y·Hs/Ht⌋, ⌊x·Ws/Wt⌋]` (nearest, PyTorch's
    /// `interpolate(mode="nearest")` index rule). Split over channels.
    func addNearestUpsampled(_ source: Tensor, into target: Tensor) {
        precondition(source.channels == target.channels, "nearest upsample channels")
        struct Job: RangeJob {
            let source, target: Tensor

            func run(worker: Int, range channels: Range<Int>) {
                for c in channels {
                    let src = source.data + c * source.plane, dst = target.data + c * target.plane
                    for y in 0..<target.height {
                        let sy = y * source.height / target.height
                        let srcRow = src + sy * source.width, dstRow = dst + y * target.width
                        for x in 0..<target.width { dstRow[x] += srcRow[x * source.width / target.width] }
                    }
                }
            }
        }
        parallelRanges(target.channels, Job(source: source, target: target))
    }

    /// Bilinear resize with `align_corners = false`: `[C, Hs, Ws]` → `[C, Ht, Wt]`.
    ///
    /// PyTorch semantics: source coordinate `(d + 0.5)·(src/dst) − 0.5`, clamped at 0; the upper
    /// neighbour is clamped to the last pixel. Weights and order of operations follow PyTorch's
    /// CPU kernel so results agree to float rounding. Split over channels.
    ///
    /// `taps` are the resize's precomputed taps (a network keeps them, so that a pass allocates
    /// nothing); without them they are computed here.
    func resizeBilinear(_ source: Tensor, into target: Tensor, taps: BilinearResizeTaps? = nil) {
        precondition(source.channels == target.channels, "bilinear resize channels")
        let taps = taps ?? BilinearResizeTaps(source: source, target: target)
        precondition(taps.ys.index.count == target.height && taps.xs.index.count == target.width, "bilinear taps size")
        struct Job: RangeJob {
            let source, target: Tensor
            let ys, xs: BilinearTaps

            func run(worker: Int, range channels: Range<Int>) {
                for c in channels {
                    let src = source.data + c * source.plane, dst = target.data + c * target.plane
                    for y in 0..<target.height {
                        let r0 = src + ys.index[y] * source.width, r1 = src + (ys.index[y] + ys.step[y]) * source.width
                        let wy0 = ys.weight0[y], wy1 = ys.weight1[y], out = dst + y * target.width
                        for x in 0..<target.width {
                            let i = xs.index[x], j = i + xs.step[x], wx0 = xs.weight0[x], wx1 = xs.weight1[x]
                            out[x] = wy0 * (wx0 * r0[i] + wx1 * r0[j]) + wy1 * (wx0 * r1[i] + wx1 * r1[j])
                        }
                    }
                }
            }
        }
        parallelRanges(target.channels, Job(source: source, target: target, ys: taps.ys, xs: taps.xs))
    }
}

/// The taps of one bilinear resize, along both axes.
struct BilinearResizeTaps {
    let ys: BilinearTaps, xs: BilinearTaps

    init(source: Tensor, target: Tensor) {
        ys = BilinearTaps(source: source.height, target: target.height)
        xs = BilinearTaps(source: source.width, target: target.width)
    }
}

/// Per-destination source index, neighbour step (0 at the last pixel) and weights along one axis.
struct BilinearTaps {
    var index: [Int] = []
    var step: [Int] = []
    var weight0: [Float] = []
    var weight1: [Float] = []

    init(source: Int, target: Int) {
        let scale = Float(source) / Float(target)
        for d in 0..<target {
            let real = max(scale * (Float(d) + 0.5) - 0.5, 0)
            let i = Int(real)
            let lambda = real - Float(i)
            index.append(i)
            step.append(i < source - 1 ? 1 : 0)
            weight0.append(1 - lambda)
            weight1.append(lambda)
        }
    }
}
