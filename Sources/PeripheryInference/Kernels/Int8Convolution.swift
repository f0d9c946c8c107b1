import CInt8Kernels

/// An INT8 convolution packed for one instruction set, with its epilogue constants:
/// `v = (acc − compensation[o]) · scale[o] + bias[o]`, where `compensation = input zero point ·
/// Σ weights[o]` removes the input's zero point exactly in int32 and `scale = input scale ·
/// weight scale[o]` (int8_kernels.h).
///
/// On AVX2 a layer whose weights all lie in −32…31 (files from `periphery quantize`, 6-bit) runs
/// the vpmaddubsw kernel that adds two products in s16 before each vpmaddwd; one within −64…63
/// (7-bit files) the vpmaddubsw kernel with one vpmaddwd each; a layer with wider weights (older
/// 8-bit files) keeps the exact vpmaddwd kernel, at half the rate. All give the same integers as
/// every other path.
final class Int8Convolution {
    let name: String
    let isa: Int8ISA
    /// The C kernel this layer runs: `isa`'s, or on AVX2 a vpmaddubsw one when its weights fit.
    let kernel: pq_isa
    let inChannels, outChannels, kernelSize, stride, padding: Int
    /// Quantization of the input it was packed for.
    let input: ActivationQuantization
    private let packed: UnsafeMutableRawPointer
    private let compensation: UnsafeMutablePointer<Int32>
    private let scale: UnsafeMutablePointer<Float>
    private let bias: UnsafeMutablePointer<Float>

    init(_ conv: QuantizedConvolution, isa: Int8ISA, input: ActivationQuantization) {
        name = conv.name
        self.isa = isa
        (inChannels, outChannels, kernelSize, stride, padding) = (conv.inChannels, conv.outChannels, conv.kernelSize, conv.stride, conv.padding)
        self.input = input
        let (cout, cin, k) = (Int32(conv.outChannels), Int32(conv.inChannels), Int32(conv.kernelSize))
        let kernel = isa == .avx2 ? Self.avx2Kernel(conv.weights) : isa.kernel
        self.kernel = kernel
        packed = .allocate(byteCount: max(64, pq_packed_size(kernel, cout, cin, k)), alignment: 64)
        compensation = .allocate(capacity: conv.outChannels)
        scale = .allocate(capacity: conv.outChannels)
        bias = .allocate(capacity: conv.outChannels)
        conv.weights.withUnsafeBufferPointer { weights in
            pq_pack_weights(kernel, weights.baseAddress, cout, cin, k, packed, compensation)
        }
        for o in 0..<conv.outChannels {
            // Weight sums are at most 128 · 512 · 9 and the zero point at most 255: no overflow.
            compensation[o] *= Int32(input.zeroPoint)
            scale[o] = input.scale * conv.weightScales[o]
            bias[o] = conv.bias[o]
        }
    }

    deinit {
        packed.deallocate()
        compensation.deallocate()
        scale.deallocate()
        bias.deallocate()
    }

    /// The fastest AVX2 kernel that is exact on `weights`: within −32…31 two vpmaddubsw products
    /// still fit an s16 sum, within −64…63 one does, wider ones need vpmaddwd on widened values.
    static func avx2Kernel(_ weights: [Int8]) -> pq_isa {
        weights.withUnsafeBufferPointer { w in
            if pq_weights_fit_maddubs6(w.baseAddress, w.count) != 0 { return PQ_ISA_AVX2_MADDUBS6 }
            if pq_weights_fit_maddubs(w.baseAddress, w.count) != 0 { return PQ_ISA_AVX2_MADDUBS }
            return PQ_ISA_AVX2
        }
    }

    /// Output channels per block of work (the kernel's register block).
    var outputBlock: Int { Int(pq_output_block(kernel)) }

    /// Output extent along one axis.
    func outputSize(_ size: Int) -> Int { (size + 2 * padding - kernelSize) / stride + 1 }

    /// The kernel's parameters for one call; the caller fills in the outputs.
    func parameters(outHeight: Int, outWidth: Int) -> pq_conv {
        var p = pq_conv()
        (p.cin, p.cout, p.k, p.stride, p.pad) = (Int32(inChannels), Int32(outChannels), Int32(kernelSize), Int32(stride), Int32(padding))
        p.packed = UnsafeRawPointer(packed)
        p.compensation = UnsafePointer(compensation)
        p.scale = UnsafePointer(scale)
        p.bias = UnsafePointer(bias)
        (p.out_height, p.out_width) = (Int32(outHeight), Int32(outWidth))
        return p
    }
}

/// What an INT8 convolution writes: a quantized tensor, or floats (the head's outputs).
enum Int8Output {
    case quantized(Int8Tensor)
    /// Pixel-major floats, `stride` per pixel.
    case floats(UnsafeMutablePointer<Float>, stride: Int)
}

extension ComputeContext {
    /// Runs an INT8 convolution with its fused epilogue (residual add, ReLU, requantization),
    /// split into items of output rows × output-channel blocks that the workers take dynamically.
    func convolve(_ conv: Int8Convolution, _ input: Int8Tensor, into output: Int8Output, residual: Int8Tensor?, relu: Bool) {
        precondition(input.quantization == conv.input, "\(conv.name): input quantized for another point")
        let outHeight = conv.outputSize(input.height), outWidth = conv.outputSize(input.width)
        var p = conv.parameters(outHeight: outHeight, outWidth: outWidth)
        switch output {
        case .quantized(let tensor):
            precondition(tensor.height == outHeight && tensor.width == outWidth && tensor.channels == conv.outChannels, "\(conv.name): output shape")
            p.output = tensor.view
            p.output_inverse_scale = 1 / tensor.quantization.scale
            p.output_zero = Int32(tensor.quantization.zeroPoint)
        case .floats(let pointer, let stride):
            p.out_f32 = pointer
            p.out_f32_stride = Int32(stride)
        }
        if let residual {
            precondition(residual.height == outHeight && residual.width == outWidth && residual.channels == conv.outChannels, "\(conv.name): residual shape")
            p.residual = residual.view
            p.residual_scale = residual.quantization.scale
            p.residual_zero = Int32(residual.quantization.zeroPoint)
        }
        p.relu = relu ? 1 : 0
        struct Job: ItemJob {
            let isa: pq_isa, parameters: pq_conv, input: pq_tensor, rows: Int, rowsPerItem: Int, blocks: Int

            func run(worker: Int, item: Int) {
                // Consecutive items share a block of weights.
                let block = item % blocks, first = (item / blocks) * rowsPerItem
                var p = parameters
                pq_conv_run(isa, &p, input, Int32(first), Int32(min(rows, first + rowsPerItem)), Int32(block), Int32(block + 1))
            }
        }
        let blocks = (conv.outChannels + conv.outputBlock - 1) / conv.outputBlock
        // About eight items per worker, so that a slowed-down core takes fewer of them.
        let rowItems = max(1, min(outHeight, 8 * threads / blocks))
        let rowsPerItem = (outHeight + rowItems - 1) / rowItems
        let items = blocks * ((outHeight + rowsPerItem - 1) / rowsPerItem)
        parallelFor(items, Job(isa: conv.kernel, parameters: p, input: input.view, rows: outHeight, rowsPerItem: rowsPerItem, blocks: blocks))
    }
}
