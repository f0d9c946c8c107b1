extension ComputeContext {
    /// Max pooling, `[C, H, W]` → `[C, H', W']`, window `size`, `stride`, `padding` with −∞ padding
    /// (so a window never takes a padded value). Split over channels.
    func maxPool(_ input: Tensor, into output: Tensor, size: Int = 3, stride: Int = 2, padding: Int = 1) {
        precondition(input.channels == output.channels, "max pool channels")
        parallelRanges(input.channels) { channels in
            for c in channels {
                let src = input.data + c * input.plane, dst = output.data + c * output.plane
                for oy in 0..<output.height {
                    let y0 = max(oy * stride - padding, 0), y1 = min(oy * stride - padding + size, input.height)
                    for ox in 0..<output.width {
                        let x0 = max(ox * stride - padding, 0), x1 = min(ox * stride - padding + size, input.width)
                        var best = -Float.infinity
                        for y in y0..<y1 {
                            let row = src + y * input.width
                            for x in x0..<x1 { best = max(best, row[x]) }
                        }
                        dst[oy * output.width + ox] = best
                    }
                }
            }
        }
    }
}
