import CInt8Kernels
import Dispatch
import PeripheryCore
import PeripheryGeometry

/// The Safety40 network in INT8 (docs/guides/weights.md), the layers of `Safety40Graph` in execution
/// order: uint8 NHWC activations, int8 weights packed for the CPU's instruction set, int32
/// accumulation and a float epilogue per convolution. Every point of `Safety40QuantizationGraph`
/// has a buffer of its own in one byte arena, so no buffer's zero-point border is ever overwritten
/// by a tensor with another zero point. The LUT gather copies quantized bytes (exact); the head
/// writes floats, which the FP32 decoder reads.
///
/// Not thread-safe: one instance per thread.
final class Safety40Int8Network: LayerProfiling {
    let context: ComputeContext
    let isa: Int8ISA
    private let arena: ByteArena
    private let floats: TensorArena
    private let steps: (backbone: [Step], head: [Step])
    private let imageTensor, featureTensor, bevInput: Int8Tensor
    /// `[840, 120]` candidate-major head outputs, as in the FP32 network.
    let headOutput: UnsafeMutablePointer<Float>

    /// Per-layer timings of the last pass, when enabled.
    var profile: [LayerTiming]?

    /// One operation of a pass, resolved at construction so that a pass looks nothing up.
    private enum Step {
        case quantizeImage
        case convolution(Int8Convolution, input: Int8Tensor, output: Int8Output, residual: Int8Tensor?, relu: Bool, flops: Int)
        case maxPool(Int8Tensor, into: Int8Tensor, name: String)
        case addUpsampled(Int8Tensor, Int8Tensor, into: Int8Tensor, name: String)
        case resize(Int8Tensor, into: Int8Tensor, taps: PairedBilinearTaps, name: String)
    }

    init(weights: Safety40Int8Weights, blas: OpenBLAS, threads: Int, isa: Int8ISA) {
        self.isa = isa
        let workers = max(1, threads), graph = Safety40Graph.self, points = Safety40QuantizationGraph.self
        func quantization(_ name: String) -> ActivationQuantization {
            guard let point = points.point(of: name) else { preconditionFailure("\(name) is not quantized") }
            return weights.activation(point)
        }

        // Every layer with a byte output has a buffer of its own, except those written into a
        // concat's slice; the head's convolutions and the output write floats.
        let owned = graph.executionOrder.filter { layer in
            layer.operation != .headOutput && !graph.isFusedIntoOutput(layer.name) && graph.concatSlice(of: layer.name) == nil
        }
        // Borders cover the widest padding of a convolution that reads the tensor (the image: the
        // stem's 3); every other tensor keeps 1 for its 3×3 readers and the max pool. Channels are
        // padded to a multiple of 4, as the kernels read them (the image's fourth holds the zero point).
        func border(_ name: String) -> Int {
            var border = 1
            for reader in graph.readers(of: name) { border = max(border, reader.padding) }
            return border
        }
        func channels(_ shape: LayerShape) -> Int { (shape.channels + 3) / 4 * 4 }
        let arena = ByteArena(
            capacity: owned.reduce(0) { bytes, layer in
                bytes + ByteArena.bytes(height: layer.shape.height, width: layer.shape.width, channels: channels(layer.shape), border: border(layer.name))
            })
        self.arena = arena
        var tensors: [String: Int8Tensor] = [:]
        for layer in owned {
            let s = layer.shape
            tensors[layer.name] = arena.tensor(
                height: s.height, width: s.width, channels: channels(s), border: border(layer.name), quantization: quantization(layer.name))
        }
        for layer in graph.executionOrder {
            guard let slice = graph.concatSlice(of: layer.name), let whole = tensors[slice.concat.name] else { continue }
            tensors[layer.name] = whole.channels(slice.channel..<slice.channel + layer.shape.channels, quantization: whole.quantization)
        }
        func tensor(_ name: String) -> Int8Tensor {
            guard let t = tensors[name] else { preconditionFailure("no INT8 buffer for \(name)") }
            return t
        }
        imageTensor = tensor(graph.image.name)
        featureTensor = tensor(graph.gather.inputs[0])
        bevInput = tensor(graph.gather.name)
        let output = graph.output, headChannels = output.shape.channels, headPixels = output.shape.plane
        let floats = TensorArena(capacity: headPixels * headChannels + workers * (16 + TensorArena.alignment) + TensorArena.alignment)
        let headOutput = floats.take(headPixels * headChannels)
        (self.floats, self.headOutput) = (floats, headOutput)
        context = ComputeContext(blas: blas, threads: workers, arena: floats, scratchCount: 16)

        func convolution(_ conv: QuantizedConvolution, input: String, output: Int8Output, residual: String?, relu: Bool, pixels: Int) -> Step {
            let c = Int8Convolution(conv, isa: isa, input: quantization(input))
            let flops = 2 * c.outChannels * c.inChannels * c.kernelSize * c.kernelSize * pixels
            return .convolution(c, input: tensor(input), output: output, residual: residual.map(tensor), relu: relu, flops: flops)
        }
        func step(_ layer: Safety40Layer) -> Step? {
            switch layer.operation {
            case .image:
                return .quantizeImage
            case .convolution:
                // The head's convolutions run as the output layer's one GEMM.
                if graph.isFusedIntoOutput(layer.name) { return nil }
                return convolution(
                    weights.convolution(layer.name), input: layer.inputs[0], output: .quantized(tensor(layer.name)),
                    residual: layer.residual, relu: layer.relu, pixels: layer.shape.plane)
            case .maxPool:
                return .maxPool(tensor(layer.inputs[0]), into: tensor(layer.name), name: layer.name)
            case .addUpsampled:
                return .addUpsampled(tensor(layer.inputs[0]), tensor(layer.inputs[1]), into: tensor(layer.name), name: layer.name)
            case .resize:
                let source = tensor(layer.inputs[0]), target = tensor(layer.name)
                let taps = PairedBilinearTaps(
                    rows: BilinearTaps(source: source.height, target: target.height),
                    columns: BilinearTaps(source: source.width, target: target.width))
                return .resize(source, into: target, taps: taps, name: layer.name)
            case .concat, .bevGather:
                // A concat's inputs wrote its slices; the gather runs between the passes (`gather`).
                return nil
            case .headOutput:
                let parts = layer.inputs.map(weights.convolution)
                guard let first = parts.first, let input = graph.layer(first.name).inputs.first else { preconditionFailure("\(layer.name): no input") }
                let fused = QuantizedConvolution(
                    name: layer.name, inChannels: first.inChannels, outChannels: headChannels, kernelSize: 1, stride: 1, padding: 0,
                    weights: parts.flatMap(\.weights), weightScales: parts.flatMap(\.weightScales), bias: parts.flatMap(\.bias))
                return convolution(
                    fused, input: input, output: .floats(headOutput, stride: headChannels), residual: nil, relu: false,
                    pixels: headPixels)
            }
        }
        steps = (graph.halves.backbone.compactMap(step), graph.halves.head.compactMap(step))
    }

    /// The kernel that names this network's convolutions: the instruction set (`avx512-vnni`,
    /// `neon-i8mm`), or on AVX2 how many run each of its kernels.
    var convolutionKernel: ConvolutionKernel {
        guard isa == .avx2 else { return .int8(isa) }
        let kernels = (steps.backbone + steps.head).compactMap { step -> pq_isa? in
            if case .convolution(let conv, _, _, _, _, _) = step { return conv.kernel }
            return nil
        }
        func count(_ kernel: pq_isa) -> Int { kernels.filter { $0 == kernel }.count }
        return .int8AVX2(maddubs6: count(PQ_ISA_AVX2_MADDUBS6), maddubs: count(PQ_ISA_AVX2_MADDUBS), maddwd: count(PQ_ISA_AVX2))
    }

    /// Features `[64, 64, 128]` of the last pass, dequantized.
    var features: [Float] { featureTensor.planarFloats() }

    /// BEV volume `[64, 6560]` (channel-major, voxel = BEV pixel · 2 + depth) of the last pass, dequantized.
    var volume: [Float] {
        let planar = bevInput.planarFloats(), pixels = bevInput.height * bevInput.width, c = Safety40.featureChannels
        var volume = [Float](repeating: 0, count: c * pixels * 2)
        for z in 0..<2 {
            for ch in 0..<c {
                for p in 0..<pixels { volume[ch * pixels * 2 + p * 2 + z] = planar[(z * c + ch) * pixels + p] }
            }
        }
        return volume
    }

    /// Normalised planar `[3, 256, 512]` image → quantized features.
    func runBackbone(image: UnsafePointer<Float>) {
        for step in steps.backbone { run(step, image: image) }
    }

    /// Quantized features → BEV neck input through the ProjectionLUT (a byte copy per voxel).
    func gather(_ lut: ProjectionLUT) {
        struct Job: RangeJob {
            let features: pq_tensor, output: pq_tensor, lut: ProjectionLUT, zero: UInt8

            func run(worker: Int, range: Range<Int>) {
                lut.indices.withUnsafeBufferPointer { indices in
                    lut.visibility.withUnsafeBufferPointer { visible in
                        pq_gather_bev(features, indices.baseAddress, visible.baseAddress, 2, zero, output, Int32(range.lowerBound), Int32(range.upperBound))
                    }
                }
            }
        }
        timed("gather") {
            context.parallelRanges(
                bevInput.height * bevInput.width,
                Job(
                    features: featureTensor.view, output: bevInput.view, lut: lut, zero: featureTensor.quantization.zeroPoint))
        }
    }

    /// BEV neck input → `headOutput`.
    func runHead() {
        for step in steps.head { run(step, image: nil) }
    }

    private func run(_ step: Step, image: UnsafePointer<Float>?) {
        switch step {
        case .quantizeImage:
            guard let image else { preconditionFailure("the image step runs in the backbone") }
            struct Job: RangeJob {
                let image: UnsafePointer<Float>, output: pq_tensor, inverse: Float, zero: Int32
                func run(worker: Int, range: Range<Int>) {
                    pq_quantize_planar(image, 3, output.height, output.width, inverse, zero, output, Int32(range.lowerBound), Int32(range.upperBound))
                }
            }
            let q = imageTensor.quantization
            timed("quantize.image") {
                context.parallelRanges(imageTensor.height, Job(image: image, output: imageTensor.view, inverse: 1 / q.scale, zero: Int32(q.zeroPoint)))
            }
        case .convolution(let conv, let input, let output, let residual, let relu, let flops):
            timed(conv.name, flops: flops) { context.convolve(conv, input, into: output, residual: residual, relu: relu) }
        case .maxPool(let input, let output, let name):
            struct Job: RangeJob {
                let input: pq_tensor, output: pq_tensor
                func run(worker: Int, range: Range<Int>) { pq_max_pool_3x3s2(input, output, Int32(range.lowerBound), Int32(range.upperBound)) }
            }
            timed(name) { context.parallelRanges(output.height, Job(input: input.view, output: output.view)) }
        case .addUpsampled(let a, let b, let output, let name):
            struct Job: RangeJob {
                let a: Int8Tensor, b: Int8Tensor, output: Int8Tensor
                func run(worker: Int, range: Range<Int>) {
                    let (qa, qb, qo) = (a.quantization, b.quantization, output.quantization)
                    pq_add_upsampled2x(
                        a.view, qa.scale, Int32(qa.zeroPoint), b.view, qb.scale, Int32(qb.zeroPoint),
                        output.view, 1 / qo.scale, Int32(qo.zeroPoint), Int32(range.lowerBound), Int32(range.upperBound))
                }
            }
            timed(name) { context.parallelRanges(a.height, Job(a: a, b: b, output: output)) }
        case .resize(let input, let output, let taps, let name):
            struct Job: RangeJob {
                let input: Int8Tensor, output: Int8Tensor, taps: PairedBilinearTaps
                func run(worker: Int, range: Range<Int>) {
                    let (qi, qo) = (input.quantization, output.quantization)
                    taps.rows.withUnsafeBufferPointer { rows in
                        taps.rowWeights.withUnsafeBufferPointer { rowWeights in
                            taps.columns.withUnsafeBufferPointer { columns in
                                taps.columnWeights.withUnsafeBufferPointer { columnWeights in
                                    pq_resize_bilinear(
                                        input.view, qi.scale, Int32(qi.zeroPoint), output.view, 1 / qo.scale, Int32(qo.zeroPoint),
                                        rows.baseAddress, rowWeights.baseAddress, columns.baseAddress, columnWeights.baseAddress,
                                        Int32(range.lowerBound), Int32(range.upperBound))
                                }
                            }
                        }
                    }
                }
            }
            timed(name) { context.parallelRanges(output.height, Job(input: input, output: output, taps: taps)) }
        }
    }
}

/// The FP32 fuse's bilinear taps as `pq_resize_bilinear` takes them: per output row (column) the
/// two source rows (columns) and their weights, interleaved.
private struct PairedBilinearTaps {
    let rows: [Int32], rowWeights: [Float], columns: [Int32], columnWeights: [Float]

    init(rows ys: BilinearTaps, columns xs: BilinearTaps) {
        func pairs(_ taps: BilinearTaps) -> ([Int32], [Float]) {
            var indices: [Int32] = [], weights: [Float] = []
            for d in taps.index.indices {
                indices += [Int32(taps.index[d]), Int32(taps.index[d] + taps.step[d])]
                weights += [taps.weight0[d], taps.weight1[d]]
            }
            return (indices, weights)
        }
        (rows, rowWeights) = pairs(ys)
        (columns, columnWeights) = pairs(xs)
    }
}
