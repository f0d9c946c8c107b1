import CInt8Kernels
import Dispatch
import PeripheryCore
import PeripheryGeometry

/// The Safety40 network in INT8 (docs/weights.md): uint8 NHWC activations, int8 weights packed
/// for the CPU's instruction set, int32 accumulation and a float epilogue per convolution. Every
/// point of `Safety40QuantizationGraph` has a buffer of its own in one byte arena, so no
/// buffer's zero-point border is ever overwritten by a tensor with another zero point. The LUT
/// gather copies quantized bytes (exact); the head writes floats, which the FP32 decoder reads.
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
        case maxPool(Int8Tensor, into: Int8Tensor)
        case addUpsampled(Int8Tensor, Int8Tensor, into: Int8Tensor, name: String)
        case resize(Int8Tensor, into: Int8Tensor, taps: PairedBilinearTaps, name: String)
    }

    init(weights: Safety40Int8Weights, blas: OpenBLAS, threads: Int, isa: Int8ISA) {
        self.isa = isa
        let workers = max(1, threads)
        let h = Safety40.inputHeight, w = Safety40.inputWidth, channels = Safety40Architecture.stageChannels
        let names = Safety40Network.names, graph = Safety40QuantizationGraph.self

        // Geometry of every point: (height, width, channels).
        var shapes: [String: (Int, Int, Int)] = [graph.image: (h, w, 4), "backbone.conv1": (h / 2, w / 2, 64)]
        for (stage, block) in names.blocks.enumerated() {
            let shape = (h / (4 << stage), w / (4 << stage), channels[stage])
            for name in [block.conv1, block.conv2, block.conv3, block.conv4] + (block.downsample.map { [$0] } ?? []) { shapes[name] = shape }
            shapes[names.laterals[stage]] = (shape.0, shape.1, 64)
            if stage < 3 { shapes[graph.topDown(stage)] = (shape.0, shape.1, 64) }
            if stage > 0 { shapes[names.outputs[stage]] = (shape.0, shape.1, 64) }
        }
        shapes[graph.concat] = (h / 4, w / 4, 256)
        shapes["neck_fuse_0"] = (Safety40.featureHeight, Safety40.featureWidth, Safety40.featureChannels)
        let (gx, gy, hx, hy) = (Safety40.voxelCountX, Safety40.voxelCountY, Safety40.headCellsX, Safety40.headCellsY)
        for name in ["neck_3d.fuse", "neck_3d.model.0.conv0.conv", "neck_3d.model.0.conv1.conv"] { shapes[name] = (gx, gy, 256) }
        for name in ["1.conv", "2.conv0.conv", "2.conv1.conv", "3.conv", "4.conv0.conv", "4.conv1.conv", "5.conv"] {
            shapes["neck_3d.model." + name] = (hx, hy, Safety40Architecture.bevChannels)
        }
        let bevInputName = "neck_3d.space_to_channel"
        shapes[bevInputName] = (gx, gy, 2 * Safety40.featureChannels)
        // The image border covers the stem's 7×7 padding; everything else is read at most 3×3.
        func border(_ point: String) -> Int { point == graph.image ? 3 : 1 }
        // The pooled stem is the one tensor that is not a point of its own.
        var bytes = ByteArena.bytes(height: h / 4, width: w / 4, channels: 64, border: 1)
        for (point, s) in shapes { bytes += ByteArena.bytes(height: s.0, width: s.1, channels: s.2, border: border(point)) }
        arena = ByteArena(capacity: bytes)
        var tensors: [String: Int8Tensor] = [:]
        for point in shapes.keys.sorted() {
            guard let s = shapes[point] else { continue }
            let q = point == bevInputName ? weights.activation("neck_fuse_0") : weights.activation(point)
            tensors[point] = arena.tensor(height: s.0, width: s.1, channels: s.2, border: border(point), quantization: q)
        }
        func tensor(_ point: String) -> Int8Tensor {
            guard let t = tensors[point] else { preconditionFailure("no INT8 buffer for \(point)") }
            return t
        }
        imageTensor = tensor(graph.image)
        featureTensor = tensor("neck_fuse_0")
        bevInput = tensor(bevInputName)
        let headChannels = Safety40.anchorsPerCell * (Safety40.classChannels + Safety40.boxCodeChannels + Safety40.directionChannels)
        floats = TensorArena(capacity: hx * hy * headChannels + workers * (16 + TensorArena.alignment) + TensorArena.alignment)
        headOutput = floats.take(hx * hy * headChannels)
        context = ComputeContext(blas: blas, threads: workers, arena: floats, scratchCount: 16)

        func layer(_ name: String) -> Int8Convolution {
            guard let input = graph.inputPoint[name] else { preconditionFailure("\(name) has no input point") }
            return Int8Convolution(weights.convolution(name), isa: isa, input: weights.activation(input))
        }
        func conv(_ name: String, _ input: Int8Tensor, _ output: Int8Tensor, residual: Int8Tensor? = nil, relu: Bool) -> Step {
            let c = layer(name)
            let flops = 2 * c.outChannels * c.inChannels * c.kernelSize * c.kernelSize * output.height * output.width
            return .convolution(c, input: input, output: .quantized(output), residual: residual, relu: relu, flops: flops)
        }
        func conv(_ name: String, _ input: String, residual: String? = nil, relu: Bool) -> Step {
            conv(name, tensor(input), tensor(name), residual: residual.map(tensor), relu: relu)
        }

        var backbone: [Step] = [.quantizeImage, conv("backbone.conv1", graph.image, relu: true)]
        let stem = tensor("backbone.conv1")
        // The pooled stem keeps the stem's quantization (a max commutes with it).
        let pooled = arena.tensor(height: h / 4, width: w / 4, channels: 64, border: 1, quantization: stem.quantization)
        backbone.append(.maxPool(stem, into: pooled))
        var input = pooled
        for block in names.blocks {
            backbone.append(conv(block.conv1, input, tensor(block.conv1), relu: true))
            var shortcut = input
            if let downsample = block.downsample {
                backbone.append(conv(downsample, input, tensor(downsample), relu: false))
                shortcut = tensor(downsample)
            }
            backbone.append(conv(block.conv2, tensor(block.conv1), tensor(block.conv2), residual: shortcut, relu: true))
            backbone.append(conv(block.conv3, block.conv2, relu: true))
            backbone.append(conv(block.conv4, block.conv3, residual: block.conv2, relu: true))
            input = tensor(block.conv4)
        }
        for i in 0..<4 { backbone.append(conv(names.laterals[i], names.blocks[i].conv4, relu: false)) }
        for i in stride(from: 3, to: 0, by: -1) {
            let upper = i == 3 ? tensor(names.laterals[3]) : tensor(graph.topDown(i))
            backbone.append(.addUpsampled(tensor(names.laterals[i - 1]), upper, into: tensor(graph.topDown(i - 1)), name: "fpn.top_down.\(i)"))
        }
        let concat = tensor(graph.concat)
        backbone.append(conv(names.outputs[0], tensor(graph.topDown(0)), concat.channels(0..<64, quantization: concat.quantization), relu: false))
        for i in 1..<4 {
            let source = i == 3 ? names.laterals[3] : graph.topDown(i)
            backbone.append(conv(names.outputs[i], source, relu: false))
            let pyramid = tensor(names.outputs[i])
            let slice = concat.channels(64 * i ..< 64 * (i + 1), quantization: concat.quantization)
            let taps = PairedBilinearTaps(
                rows: BilinearTaps(source: pyramid.height, target: concat.height),
                columns: BilinearTaps(source: pyramid.width, target: concat.width))
            backbone.append(.resize(pyramid, into: slice, taps: taps, name: "fuse.bilinear.\(i)"))
        }
        backbone.append(conv("neck_fuse_0", graph.concat, relu: false))

        var head: [Step] = [conv("neck_3d.fuse", bevInput, tensor("neck_3d.fuse"), relu: false)]
        head.append(conv("neck_3d.model.0.conv0.conv", "neck_3d.fuse", relu: true))
        head.append(conv("neck_3d.model.0.conv1.conv", "neck_3d.model.0.conv0.conv", residual: "neck_3d.fuse", relu: true))
        head.append(conv("neck_3d.model.1.conv", "neck_3d.model.0.conv1.conv", relu: true))
        head.append(conv("neck_3d.model.2.conv0.conv", "neck_3d.model.1.conv", relu: true))
        head.append(conv("neck_3d.model.2.conv1.conv", "neck_3d.model.2.conv0.conv", residual: "neck_3d.model.1.conv", relu: true))
        head.append(conv("neck_3d.model.3.conv", "neck_3d.model.2.conv1.conv", relu: true))
        head.append(conv("neck_3d.model.4.conv0.conv", "neck_3d.model.3.conv", relu: true))
        head.append(conv("neck_3d.model.4.conv1.conv", "neck_3d.model.4.conv0.conv", residual: "neck_3d.model.3.conv", relu: true))
        head.append(conv("neck_3d.model.5.conv", "neck_3d.model.4.conv1.conv", relu: true))
        // The three anchor-head convolutions as one, its float output candidate-major.
        let cls = weights.convolution("bbox_head.conv_cls"), reg = weights.convolution("bbox_head.conv_reg")
        let dir = weights.convolution("bbox_head.conv_dir_cls")
        let fused = QuantizedConvolution(
            name: "bbox_head", inChannels: cls.inChannels, outChannels: headChannels, kernelSize: 1, stride: 1, padding: 0,
            weights: cls.weights + reg.weights + dir.weights, weightScales: cls.weightScales + reg.weightScales + dir.weightScales,
            bias: cls.bias + reg.bias + dir.bias)
        let headConv = Int8Convolution(fused, isa: isa, input: weights.activation("neck_3d.model.5.conv"))
        head.append(.convolution(
            headConv, input: tensor("neck_3d.model.5.conv"), output: .floats(headOutput, stride: headChannels), residual: nil,
            relu: false, flops: 2 * headChannels * cls.inChannels * hx * hy))
        steps = (backbone, head)
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
            context.parallelRanges(bevInput.height * bevInput.width, Job(
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
        case let .convolution(conv, input, output, residual, relu, flops):
            timed(conv.name, flops: flops) { context.convolve(conv, input, into: output, residual: residual, relu: relu) }
        case let .maxPool(input, output):
            struct Job: RangeJob {
                let input: pq_tensor, output: pq_tensor
                func run(worker: Int, range: Range<Int>) { pq_max_pool_3x3s2(input, output, Int32(range.lowerBound), Int32(range.upperBound)) }
            }
            timed("maxpool") { context.parallelRanges(output.height, Job(input: input.view, output: output.view)) }
        case let .addUpsampled(a, b, output, name):
            struct Job: RangeJob {
                let a: Int8Tensor, b: Int8Tensor, output: Int8Tensor
                func run(worker: Int, range: Range<Int>) {
                    let (qa, qb, qo) = (a.quantization, b.quantization, output.quantization)
                    pq_add_upsampled2x(a.view, qa.scale, Int32(qa.zeroPoint), b.view, qb.scale, Int32(qb.zeroPoint),
                                       output.view, 1 / qo.scale, Int32(qo.zeroPoint), Int32(range.lowerBound), Int32(range.upperBound))
                }
            }
            timed(name) { context.parallelRanges(a.height, Job(a: a, b: b, output: output)) }
        case let .resize(input, output, taps, name):
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
