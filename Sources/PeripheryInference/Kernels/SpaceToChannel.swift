extension ComputeContext {
    /// M2BevNeck's space-to-channel: volume `[C, X, Y, Z]` (voxel order `(x·Y + y)·Z + z`) →
    /// `[Z·C, X, Y]` with channel `z·C + c`, i.e. PyTorch's
    /// `permute(0,2,3,4,1).reshape(1, X, Y, Z·C).permute(0,3,1,2)`. Split over channels.
    func spaceToChannel(volume: UnsafePointer<Float>, channels: Int, depth: Int, into output: Tensor) {
        precondition(output.channels == channels * depth, "space-to-channel channels")
        struct Job: RangeJob {
            let volume: UnsafePointer<Float>, channels: Int, depth: Int, output: Tensor

            func run(worker: Int, range: Range<Int>) {
                let columns = output.plane
                for c in range {
                    let src = volume + c * columns * depth
                    for z in 0..<depth {
                        let dst = output.data + (z * channels + c) * columns
                        for i in 0..<columns { dst[i] = src[i * depth + z] }
                    }
                }
            }
        }
        parallelRanges(channels, Job(volume: volume, channels: channels, depth: depth, output: output))
    }

    /// Three 1×1 head convolutions fused into one GEMM whose output is candidate-major:
    /// `out[s, j] = bias[j] + Σ_ci weights[j, ci] · in[ci, s]` for pixel `s = ix·40 + iy` and
    /// output channel `j` — the transpose of the convolution, so `[840, 8·C]` reads directly as
    /// `[6720, C]` per head.
    func pointwiseTransposed(_ conv: Convolution, _ input: Tensor, into out: UnsafeMutablePointer<Float>) {
        let n = input.plane, m = conv.outChannels, k = conv.inChannels
        precondition(conv.isPointwise && k == input.channels, "\(conv.name): pointwise head")
        conv.weights.withUnsafeBufferPointer { weights in
            guard let w = weights.baseAddress else { return }
            // out[n × m] = inᵀ[n × k] · wᵀ[k × m]
            blas.sgemm(
                transposeA: true, transposeB: true, m: n, n: m, k: k, a: input.data, lda: n, b: w, ldb: k,
                beta: 0, c: out, ldc: m)
        }
        for s in 0..<n {
            let row = out + s * m
            for j in 0..<m { row[j] += conv.bias[j] }
        }
    }
}
