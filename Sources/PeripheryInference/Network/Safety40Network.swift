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

/// The Safety40 network on one preallocated arena: image → features (backbone, FPN, fuse) and
/// volume → candidate-major head outputs (BEV neck, anchor head). The LUT gather between the two
/// halves belongs to the caller.
///
/// Not thread-safe: one instance per thread (the weights it was built from can be shared).
final class Safety40Network {
    let context: ComputeContext
    private let arena: TensorArena
    private let convs: [String: Convolution]
    /// Winograd forms of the 3×3 stride-1 convolutions, by name.
    private let winograd: [String: WinogradConvolution]
    /// Winograd scratch: transformed inputs and the 36 GEMM products, one pair per worker.
    private let winogradInput: [UnsafeMutablePointer<Float>], winogradProducts: [UnsafeMutablePointer<Float>]
    private let head: Convolution

    /// `[3, 256, 512]` normalised planar RGB input.
    let image: Tensor
    /// `[64, 64, 128]` output of the backbone half.
    let features: Tensor
    /// `[64, 6560]` BEV volume, input of the head half.
    let volume: Tensor
    /// `[840, 120]` candidate-major head outputs: per pixel 32 class, 72 box and 16 direction values.
    let headOutput: UnsafeMutablePointer<Float>

    private let stem: Tensor, pooled: Tensor
    /// Per ResNet stage: block outputs, the conv1 temporary and the downsampled shortcut.
    private let stages: [(block0: Tensor, block1: Tensor, temporary: Tensor, shortcut: Tensor?)]
    private let laterals: [Tensor]
    private let pyramid: [Tensor]
    private let concat: Tensor
    private let bevInput: Tensor, bevFused: Tensor, bevTemporary256: Tensor, bevOut256: Tensor
    private let bev: [Tensor]
    private let bevTemporary192: Tensor

    /// Per-worker im2col scratch, floats.
    static let scratchPerWorker = 1 << 20

    init(weights: Safety40Weights, blas: OpenBLAS, threads: Int) {
        convs = weights.convolutions
        let cls = weights.convolution("bbox_head.conv_cls"), reg = weights.convolution("bbox_head.conv_reg")
        let dir = weights.convolution("bbox_head.conv_dir_cls")
        head = Convolution(
            name: "bbox_head", inChannels: cls.inChannels, outChannels: cls.outChannels + reg.outChannels + dir.outChannels,
            kernelSize: 1, stride: 1, padding: 0, weights: cls.weights + reg.weights + dir.weights,
            bias: cls.bias + reg.bias + dir.bias)

        let h = Safety40.inputHeight, w = Safety40.inputWidth, c = Safety40Architecture.stageChannels
        let plan: [(Int, Int, Int)] = [(3, h, w), (64, h / 2, w / 2), (64, h / 4, w / 4)]
            + (0..<4).flatMap { i -> [(Int, Int, Int)] in
                let size = (c[i], h / (4 << i), w / (4 << i))
                return [size, size, size] + (i > 0 ? [size] : [])
            }
            + (0..<4).map { i in (64, h / (4 << i), w / (4 << i)) }   // laterals
            + (0..<4).map { i in (64, h / (4 << i), w / (4 << i)) }   // pyramid
            + [(256, h / 4, w / 4), (64, h / 4, w / 4), (64, 1, Safety40.voxelCount)]
            + [(128, 41, 80), (256, 41, 80), (256, 41, 80), (256, 41, 80), (192, 21, 40), (192, 21, 40)]
            + Array(repeating: (192, 21, 40), count: 4) + [(840, 1, 120)]
        let activations = plan.reduce(0) { $0 + $1.0 * $1.1 * $1.2 + 16 }
        var winograd: [String: WinogradConvolution] = [:]
        var inputScratch = 0, productScratch = 0
        for (name, conv) in convs where conv.kernelSize == 3 && conv.stride == 1 {
            guard let size = Safety40Network.mapSize[name] else { continue }
            let tiles = WinogradPlan(height: size.height, width: size.width, threads: max(1, threads)).bufferTiles
            winograd[name] = WinogradConvolution(conv)
            inputScratch = max(inputScratch, 36 * conv.inChannels * tiles)
            productScratch = max(productScratch, 36 * conv.outChannels * tiles)
        }
        self.winograd = winograd
        let workers = max(1, threads)
        arena = TensorArena(
            capacity: activations + workers * (Safety40Network.scratchPerWorker + inputScratch + productScratch + 48))
        winogradInput = (0..<workers).map { [arena] _ in arena.take(inputScratch) }
        winogradProducts = (0..<workers).map { [arena] _ in arena.take(productScratch) }
        context = ComputeContext(blas: blas, threads: threads, arena: arena, scratchCount: Safety40Network.scratchPerWorker)

        image = arena.tensor(3, h, w)
        stem = arena.tensor(64, h / 2, w / 2)
        pooled = arena.tensor(64, h / 4, w / 4)
        stages = (0..<4).map { [arena] i in
            let (ch, sh, sw) = (c[i], h / (4 << i), w / (4 << i))
            return (arena.tensor(ch, sh, sw), arena.tensor(ch, sh, sw), arena.tensor(ch, sh, sw),
                    i > 0 ? arena.tensor(ch, sh, sw) : nil)
        }
        laterals = (0..<4).map { [arena] i in arena.tensor(64, h / (4 << i), w / (4 << i)) }
        pyramid = (0..<4).map { [arena] i in arena.tensor(64, h / (4 << i), w / (4 << i)) }
        concat = arena.tensor(256, h / 4, w / 4)
        features = arena.tensor(64, h / 4, w / 4)
        volume = arena.tensor(64, 1, Safety40.voxelCount)
        bevInput = arena.tensor(128, 41, 80)
        bevFused = arena.tensor(256, 41, 80)
        bevTemporary256 = arena.tensor(256, 41, 80)
        bevOut256 = arena.tensor(256, 41, 80)
        bev = (0..<5).map { [arena] _ in arena.tensor(192, 21, 40) }
        bevTemporary192 = bev[4]
        headOutput = arena.take(840 * 120)
    }

    private func conv(_ name: String) -> Convolution {
        guard let conv = convs[name] else { preconditionFailure("no convolution \(name)") }
        return conv
    }

    /// Per-layer timings of the last pass, when enabled (`nil` keeps the hot path free of clocks).
    var profile: [LayerTiming]?

    private func run(_ name: String, _ input: Tensor, _ output: Tensor, residual: Tensor? = nil, relu: Bool) {
        let convolution = conv(name), epilogue = Epilogue(residual: residual, relu: relu)
        timed(name, flops: 2 * convolution.outChannels * convolution.reduction * output.plane) {
            if let fast = winograd[name] {
                context.convolve(fast, input, into: output, epilogue, transformed: winogradInput, products: winogradProducts)
            } else {
                context.convolve(convolution, input, into: output, epilogue)
            }
        }
    }

    /// Output map size of each 3×3 stride-1 convolution (they keep their input size).
    static let mapSize: [String: (height: Int, width: Int)] = {
        var sizes: [String: (height: Int, width: Int)] = [:]
        let h = Safety40.inputHeight, w = Safety40.inputWidth
        for (stage, _) in Safety40Architecture.stageChannels.enumerated() {
            let size = (height: h / (4 << stage), width: w / (4 << stage))
            let prefix = "backbone.layer\(stage + 1)."
            for name in ["0.conv2", "1.conv1", "1.conv2"] + (stage == 0 ? ["0.conv1"] : []) { sizes[prefix + name] = size }
            sizes["neck.fpn_convs.\(stage).conv"] = size
        }
        sizes["neck_fuse_0"] = (h / 4, w / 4)
        for name in ["0.conv0.conv", "0.conv1.conv"] { sizes["neck_3d.model." + name] = (41, 80) }
        for name in ["2.conv0.conv", "2.conv1.conv", "3.conv", "4.conv0.conv", "4.conv1.conv", "5.conv"] {
            sizes["neck_3d.model." + name] = (21, 40)
        }
        return sizes
    }()

    private func timed(_ name: String, flops: Int = 0, _ body: () -> Void) {
        guard profile != nil else { return body() }
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        profile?.append(LayerTiming(name: name, milliseconds: elapsed, flops: flops))
    }

    /// `image` → `features`: ResNet-18, FPN, bilinear fuse.
    func runBackbone() {
        run("backbone.conv1", image, stem, relu: true)
        timed("maxpool") { context.maxPool3x3Stride2(stem, into: pooled) }
        var input = pooled
        for (i, stage) in stages.enumerated() {
            let prefix = "backbone.layer\(i + 1)."
            // Block 0 (stride 2 with a downsampled shortcut in stages 2–4).
            run(prefix + "0.conv1", input, stage.temporary, relu: true)
            var shortcut = input
            if let downsampled = stage.shortcut {
                run(prefix + "0.downsample.0", input, downsampled, relu: false)
                shortcut = downsampled
            }
            run(prefix + "0.conv2", stage.temporary, stage.block0, residual: shortcut, relu: true)
            // Block 1.
            run(prefix + "1.conv1", stage.block0, stage.temporary, relu: true)
            run(prefix + "1.conv2", stage.temporary, stage.block1, residual: stage.block0, relu: true)
            input = stage.block1
        }
        for i in 0..<4 { run("neck.lateral_convs.\(i).conv", stages[i].block1, laterals[i], relu: false) }
        timed("fpn.top_down") {
            for i in stride(from: 3, to: 0, by: -1) { context.addNearestUpsampled(laterals[i], into: laterals[i - 1]) }
        }
        // P0 goes straight into its concat slice; P1…P3 are resized into theirs.
        run("neck.fpn_convs.0.conv", laterals[0], concat.channels(0..<64), relu: false)
        for i in 1..<4 {
            run("neck.fpn_convs.\(i).conv", laterals[i], pyramid[i], relu: false)
            timed("fuse.bilinear.\(i)") { context.resizeBilinear(pyramid[i], into: concat.channels(64 * i ..< 64 * (i + 1))) }
        }
        run("neck_fuse_0", concat, features, relu: false)
    }

    /// `volume` → `headOutput`: space-to-channel, BEV neck, fused anchor head.
    func runHead() {
        timed("neck_3d.space_to_channel") {
            context.spaceToChannel(volume: volume.data, channels: 64, depth: Safety40.voxelCountZ, into: bevInput)
        }
        run("neck_3d.fuse", bevInput, bevFused, relu: false)
        run("neck_3d.model.0.conv0.conv", bevFused, bevTemporary256, relu: true)
        run("neck_3d.model.0.conv1.conv", bevTemporary256, bevOut256, residual: bevFused, relu: true)
        run("neck_3d.model.1.conv", bevOut256, bev[0], relu: true)
        run("neck_3d.model.2.conv0.conv", bev[0], bevTemporary192, relu: true)
        run("neck_3d.model.2.conv1.conv", bevTemporary192, bev[1], residual: bev[0], relu: true)
        run("neck_3d.model.3.conv", bev[1], bev[2], relu: true)
        run("neck_3d.model.4.conv0.conv", bev[2], bevTemporary192, relu: true)
        run("neck_3d.model.4.conv1.conv", bevTemporary192, bev[3], residual: bev[2], relu: true)
        run("neck_3d.model.5.conv", bev[3], bev[1], relu: true)
        timed("bbox_head", flops: 2 * head.outChannels * head.inChannels * bev[1].plane) {
            context.pointwiseTransposed(head, bev[1], into: headOutput)
        }
    }
}
