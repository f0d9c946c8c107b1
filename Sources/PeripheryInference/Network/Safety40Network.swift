import Dispatch
import PeripheryCore

/// Time spent in one layer of the network.
public struct LayerTiming: Sendable, Hashable {
    /// Checkpoint name of the layer, or the kernel's name for layers without weights.
    public var name: String
    /// Wall time, milliseconds.
    public var milliseconds: Double
    /// Floating-point operations (2 per multiply-add), 0 for data movement.
    public var flops: Int

    /// Achieved GFLOP/s.
    public var gflopsPerSecond: Double { milliseconds > 0 ? Double(flops) / milliseconds / 1e6 : 0 }
}

/// A network that can record per-layer timings of its passes (FP32 and INT8 alike).
protocol LayerProfiling: AnyObject {
    /// Per-layer timings of the last pass, when enabled (`nil` keeps the hot path free of clocks).
    var profile: [LayerTiming]? { get set }
}

extension LayerProfiling {
    /// Runs `body`, recording its time under `name` when profiling. The name is only built then.
    func timed(_ name: @autoclosure () -> String, flops: Int = 0, _ body: () -> Void) {
        guard profile != nil else { return body() }
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        profile?.append(LayerTiming(name: name(), milliseconds: elapsed, flops: flops))
    }
}

/// The Safety40 network on one preallocated arena: image → features (backbone, FPN, fuse) and
/// volume → candidate-major head outputs (BEV neck, anchor head). The LUT gather between the two
/// halves belongs to the caller.
///
/// Not thread-safe: one instance per thread (the weights it was built from can be shared).
final class Safety40Network: LayerProfiling {
    /// A convolution in the form the network runs it.
    enum Layer {
        /// im2col + sgemm (or a plain GEMM for 1×1).
        case direct(Convolution)
        /// Winograd F(4×4, 3×3); `flops` counts the direct-convolution equivalent, for profiles.
        case winograd(WinogradConvolution, flops: Int)
    }

    let context: ComputeContext
    private let arena: TensorArena
    /// Every convolution by checkpoint name; 3×3 stride-1 ones only in their Winograd form.
    private let layers: [String: Layer]
    /// The three head convolutions fused into one candidate-major GEMM.
    private let head: Convolution
    /// Winograd scratch: transformed inputs and the 36 GEMM products, one pair per worker, each set
    /// contiguous so that a layer without blocks uses it whole from its first pointer.
    private let winogradInput: [UnsafeMutablePointer<Float>], winogradProducts: [UnsafeMutablePointer<Float>]
    private let buffers: Buffers
    /// Taps of the three bilinear resizes of the fuse (pyramid levels 1–3 into the concat).
    private let fuseTaps: [BilinearResizeTaps]

    /// `[3, 256, 512]` normalised planar RGB input.
    var image: Tensor { buffers.image }
    /// `[64, 64, 128]` output of the backbone half.
    var features: Tensor { buffers.features }
    /// `[64, 6560]` BEV volume, input of the head half.
    var volume: Tensor { buffers.volume }
    /// `[840, 120]` candidate-major head outputs: per pixel 32 class, 72 box and 16 direction values.
    var headOutput: UnsafeMutablePointer<Float> { buffers.headOutput.data }

    /// Per-worker im2col scratch, floats.
    static let scratchPerWorker = 1 << 20

    /// Per-layer timings of the last pass, when enabled (`nil` keeps the hot path free of clocks).
    var profile: [LayerTiming]?

    /// Sees every quantization point's tensor (`Safety40QuantizationGraph`) as the pass writes it,
    /// for calibrating INT8 (`Safety40Quantizer`); `nil` in inference.
    var observer: ((String, Tensor) -> Void)?

    init(weights: Safety40Weights, blas: OpenBLAS, threads: Int) {
        let workers = max(1, threads)
        var layers: [String: Layer] = [:]
        // Winograd scratch: a layer run in blocks needs one block's buffers per worker; a layer run
        // without blocks needs one buffer for the whole map, which is all workers' buffers together
        // (they are laid out contiguously), so that it costs no memory of its own.
        var blockInput = 0, blockProducts = 0, wholeInput = 0, wholeProducts = 0
        for (name, conv) in weights.convolutions {
            guard let size = Safety40Network.winogradMapSize[name] else {
                layers[name] = .direct(conv)
                continue
            }
            let plan = WinogradPlan(height: size.height, width: size.width, threads: workers)
            let input = 36 * conv.inChannels * plan.bufferTiles, products = 36 * conv.outChannels * plan.bufferTiles
            if plan.blocks > 0 {
                (blockInput, blockProducts) = (max(blockInput, input), max(blockProducts, products))
            } else {
                (wholeInput, wholeProducts) = (max(wholeInput, input), max(wholeProducts, products))
            }
            layers[name] = .winograd(WinogradConvolution(conv), flops: 2 * conv.outChannels * conv.reduction * size.height * size.width)
        }
        self.layers = layers
        let cls = weights.convolution("bbox_head.conv_cls"), reg = weights.convolution("bbox_head.conv_reg")
        let dir = weights.convolution("bbox_head.conv_dir_cls")
        head = Convolution(
            name: "bbox_head", inChannels: cls.inChannels, outChannels: cls.outChannels + reg.outChannels + dir.outChannels,
            kernelSize: 1, stride: 1, padding: 0, weights: cls.weights + reg.weights + dir.weights,
            bias: cls.bias + reg.bias + dir.bias)

        // Size the arena by laying the buffers out once without memory, then for real.
        var activations = 0
        let placeholder = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        _ = Buffers { count in
            activations += count + TensorArena.alignment
            return placeholder
        }
        placeholder.deallocate()
        func perWorker(_ block: Int, _ whole: Int) -> Int {
            let count = max(block, (whole + workers - 1) / workers)
            return (count + TensorArena.alignment - 1) / TensorArena.alignment * TensorArena.alignment
        }
        let inputPerWorker = perWorker(blockInput, wholeInput), productsPerWorker = perWorker(blockProducts, wholeProducts)
        arena = TensorArena(capacity: activations + workers * (Safety40Network.scratchPerWorker + TensorArena.alignment)
            + workers * (inputPerWorker + productsPerWorker) + 2 * TensorArena.alignment)
        buffers = Buffers(allocate: arena.take)
        fuseTaps = (1..<4).map { [buffers] i in BilinearResizeTaps(source: buffers.pyramid[i], target: buffers.concat) }
        let input = arena.take(workers * inputPerWorker), products = arena.take(workers * productsPerWorker)
        winogradInput = (0..<workers).map { input + $0 * inputPerWorker }
        winogradProducts = (0..<workers).map { products + $0 * productsPerWorker }
        context = ComputeContext(blas: blas, threads: workers, arena: arena, scratchCount: Safety40Network.scratchPerWorker)
    }

    /// `image` → `features`: ResNet-18, FPN, bilinear fuse.
    func runBackbone() {
        let b = buffers, names = Safety40Network.names
        observer?(Safety40QuantizationGraph.image, b.image)
        run("backbone.conv1", b.image, b.stem, relu: true)
        timed("maxpool") { context.maxPool3x3Stride2(b.stem, into: b.pooled) }
        var input = b.pooled
        for (stage, block) in zip(b.stages, names.blocks) {
            // Block 0 (stride 2 with a downsampled shortcut in stages 2–4), then block 1.
            run(block.conv1, input, stage.temporary, relu: true)
            var shortcut = input
            if let downsampled = stage.shortcut, let downsample = block.downsample {
                run(downsample, input, downsampled, relu: false)
                shortcut = downsampled
            }
            run(block.conv2, stage.temporary, stage.block0, residual: shortcut, relu: true)
            run(block.conv3, stage.block0, stage.temporary, relu: true)
            run(block.conv4, stage.temporary, stage.block1, residual: stage.block0, relu: true)
            input = stage.block1
        }
        for i in 0..<4 { run(names.laterals[i], b.stages[i].block1, b.laterals[i], relu: false) }
        timed("fpn.top_down") {
            for i in stride(from: 3, to: 0, by: -1) { context.addNearestUpsampled(b.laterals[i], into: b.laterals[i - 1]) }
        }
        if let observer { for i in 0..<3 { observer(Safety40QuantizationGraph.topDown(i), b.laterals[i]) } }
        // P0 goes straight into its concat slice; P1…P3 are resized into theirs.
        run(names.outputs[0], b.laterals[0], b.concat.channels(0..<64), relu: false)
        for i in 1..<4 {
            run(names.outputs[i], b.laterals[i], b.pyramid[i], relu: false)
            timed("fuse.bilinear.\(i)") {
                context.resizeBilinear(b.pyramid[i], into: b.concat.channels(64 * i ..< 64 * (i + 1)), taps: fuseTaps[i - 1])
            }
        }
        observer?(Safety40QuantizationGraph.concat, b.concat)
        run("neck_fuse_0", b.concat, b.features, relu: false)
    }

    /// `volume` → `headOutput`: space-to-channel, BEV neck, fused anchor head.
    func runHead() {
        let b = buffers
        timed("neck_3d.space_to_channel") {
            context.spaceToChannel(volume: b.volume.data, channels: 64, depth: Safety40.voxelCountZ, into: b.bevInput)
        }
        run("neck_3d.fuse", b.bevInput, b.bevFused, relu: false)
        run("neck_3d.model.0.conv0.conv", b.bevFused, b.bevTemporary, relu: true)
        run("neck_3d.model.0.conv1.conv", b.bevTemporary, b.bevBlock, residual: b.bevFused, relu: true)
        run("neck_3d.model.1.conv", b.bevBlock, b.bev[0], relu: true)
        run("neck_3d.model.2.conv0.conv", b.bev[0], b.bev[3], relu: true)
        run("neck_3d.model.2.conv1.conv", b.bev[3], b.bev[1], residual: b.bev[0], relu: true)
        run("neck_3d.model.3.conv", b.bev[1], b.bev[2], relu: true)
        run("neck_3d.model.4.conv0.conv", b.bev[2], b.bev[3], relu: true)
        run("neck_3d.model.4.conv1.conv", b.bev[3], b.bev[0], residual: b.bev[2], relu: true)
        run("neck_3d.model.5.conv", b.bev[0], b.bev[1], relu: true)
        timed("bbox_head", flops: 2 * head.outChannels * head.inChannels * b.bev[1].plane) {
            context.pointwiseTransposed(head, b.bev[1], into: b.headOutput.data)
        }
    }

    private func run(_ name: String, _ input: Tensor, _ output: Tensor, residual: Tensor? = nil, relu: Bool) {
        guard let layer = layers[name] else { preconditionFailure("no convolution \(name) in Safety40Architecture") }
        let epilogue = Epilogue(residual: residual, relu: relu)
        switch layer {
        case let .direct(conv):
            timed(name, flops: 2 * conv.outChannels * conv.reduction * output.plane) {
                context.convolve(conv, input, into: output, epilogue)
            }
        case let .winograd(conv, flops):
            timed(name, flops: flops) {
                context.convolve(conv, input, into: output, epilogue, transformed: winogradInput, products: winogradProducts)
            }
        }
        if let observer, let point = Safety40QuantizationGraph.outputPoint(of: name), point == name { observer(point, output) }
    }
}

extension Safety40Network {
    /// Layer names the passes use, built once so that a pass allocates no strings.
    struct Names {
        /// Per ResNet stage: block 0 conv1, conv2, downsample; block 1 conv1 (`conv3`) and conv2 (`conv4`).
        let blocks: [(conv1: String, conv2: String, downsample: String?, conv3: String, conv4: String)]
        let laterals: [String]
        let outputs: [String]
    }

    static let names = Names(
        blocks: (1...4).map { stage in
            let prefix = "backbone.layer\(stage)."
            return (prefix + "0.conv1", prefix + "0.conv2", stage > 1 ? prefix + "0.downsample.0" : nil,
                    prefix + "1.conv1", prefix + "1.conv2")
        },
        laterals: (0..<4).map { "neck.lateral_convs.\($0).conv" },
        outputs: (0..<4).map { "neck.fpn_convs.\($0).conv" })

    /// Fewest 4×4 output tiles for which Winograd pays: on smaller maps the 36 GEMMs are too skinny,
    /// and streaming the transformed weights (4× the direct ones: 38 MB for a 512→512 layer-4
    /// convolution with its 8 tiles) costs more than the direct convolution's arithmetic.
    static let winogradMinimumTiles = 16

    /// Map size of each 3×3 stride-1 convolution (they keep their input size) that runs as Winograd.
    static let winogradMapSize: [String: (height: Int, width: Int)] = {
        var sizes: [String: (height: Int, width: Int)] = [:]
        let h = Safety40.inputHeight, w = Safety40.inputWidth
        for (stage, block) in names.blocks.enumerated() {
            let size = (height: h / (4 << stage), width: w / (4 << stage))
            guard ((size.height + 3) / 4) * ((size.width + 3) / 4) >= winogradMinimumTiles else { continue }
            for name in [block.conv2, block.conv3, block.conv4] + (stage == 0 ? [block.conv1] : []) { sizes[name] = size }
            sizes[names.outputs[stage]] = size
        }
        sizes["neck_fuse_0"] = (h / 4, w / 4)
        for name in ["0.conv0.conv", "0.conv1.conv"] { sizes["neck_3d.model." + name] = (41, 80) }
        for name in ["2.conv0.conv", "2.conv1.conv", "3.conv", "4.conv0.conv", "4.conv1.conv", "5.conv"] {
            sizes["neck_3d.model." + name] = (21, 40)
        }
        return sizes
    }()

    /// Every activation of one pass, laid out by an allocator (the arena, or a counter when sizing it).
    struct Buffers {
        let image, stem, pooled: Tensor
        /// Per ResNet stage: block outputs, the conv1 temporary and the downsampled shortcut.
        let stages: [(block0: Tensor, block1: Tensor, temporary: Tensor, shortcut: Tensor?)]
        let laterals, pyramid: [Tensor]
        let concat, features, volume: Tensor
        let bevInput, bevFused, bevTemporary, bevBlock: Tensor
        /// Four `[192, 21, 40]` maps the BEV neck cycles through.
        let bev: [Tensor]
        let headOutput: Tensor

        init(allocate: (Int) -> UnsafeMutablePointer<Float>) {
            func tensor(_ c: Int, _ h: Int, _ w: Int) -> Tensor {
                Tensor(data: allocate(c * h * w), channels: c, height: h, width: w)
            }
            let h = Safety40.inputHeight, w = Safety40.inputWidth, channels = Safety40Architecture.stageChannels
            let (gx, gy) = (Safety40.voxelCountX, Safety40.voxelCountY)
            let (hx, hy) = (Safety40.headCellsX, Safety40.headCellsY)
            image = tensor(3, h, w)
            stem = tensor(64, h / 2, w / 2)
            pooled = tensor(64, h / 4, w / 4)
            stages = (0..<4).map { i in
                let (c, sh, sw) = (channels[i], h / (4 << i), w / (4 << i))
                return (tensor(c, sh, sw), tensor(c, sh, sw), tensor(c, sh, sw), i > 0 ? tensor(c, sh, sw) : nil)
            }
            laterals = (0..<4).map { i in tensor(64, h / (4 << i), w / (4 << i)) }
            pyramid = (0..<4).map { i in tensor(64, h / (4 << i), w / (4 << i)) }
            concat = tensor(256, h / 4, w / 4)
            features = tensor(Safety40.featureChannels, Safety40.featureHeight, Safety40.featureWidth)
            volume = tensor(Safety40.featureChannels, 1, Safety40.voxelCount)
            bevInput = tensor(2 * Safety40.featureChannels, gx, gy)
            bevFused = tensor(256, gx, gy)
            bevTemporary = tensor(256, gx, gy)
            bevBlock = tensor(256, gx, gy)
            bev = (0..<4).map { _ in tensor(Safety40Architecture.bevChannels, hx, hy) }
            headOutput = tensor(hx * hy, 1, Safety40.anchorsPerCell * (Safety40.classChannels + Safety40.boxCodeChannels + Safety40.directionChannels))
        }
    }
}
