extension ComputeContext {
    /// Max pooling 3×3, stride 2, padding 1 with −∞ padding: `[C, H, W]` → `[C, ⌈H/2⌉, ⌈W/2⌉]`.
    ///
    /// Separable: each input row is split into its even and odd columns so that the horizontal
    /// window `max(odd[x−1], even[x], odd[x])` is three contiguous vectors, then three such rows
    /// are combined vertically. Split over channels.
    func maxPool3x3Stride2(_ input: Tensor, into output: Tensor) {
        let (h, w, oh, ow) = (input.height, input.width, output.height, output.width)
        precondition(input.channels == output.channels && oh == (h + 1) / 2 && ow == (w + 1) / 2, "max pool shapes")
        struct Job: RangeJob {
            let context: ComputeContext, input, output: Tensor

            func run(worker: Int, range channels: Range<Int>) {
                let (h, w, oh, ow) = (input.height, input.width, output.height, output.width)
                let even = context.rowScratch(worker, count: 2 * (ow + 1) + ow)
                // odd[-1] is the left padding: the buffer starts one element early.
                let oddBase = even + ow, odd = oddBase + 1, row = odd + ow
                oddBase[0] = -.infinity
                for c in channels {
                    let src = input.data + c * input.plane, dst = output.data + c * output.plane
                    for oy in 0..<oh {
                        let out = dst + oy * ow
                        out.update(repeating: -.infinity, count: ow)
                        for y in max(2 * oy - 1, 0)...min(2 * oy + 1, h - 1) {
                            let line = src + y * w
                            for x in 0..<ow {
                                even[x] = line[2 * x]
                                odd[x] = 2 * x + 1 < w ? line[2 * x + 1] : -.infinity
                            }
                            for x in 0..<ow { row[x] = max(max(oddBase[x], even[x]), odd[x]) }
                            for x in 0..<ow { out[x] = max(out[x], row[x]) }
                        }
                    }
                }
            }
        }
        parallelRanges(input.channels, Job(context: self, input: input, output: output))
    }
}
