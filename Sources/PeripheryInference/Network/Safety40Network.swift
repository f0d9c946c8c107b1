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
/// volume → candidate-major head outputs (BEV neck, anchor head), each half the layers of
/// `Safety40Graph` in execution order. The LUT gather between the two halves belongs to the caller.
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

    /// What one layer of a pass runs, resolved at construction so that a pass looks nothing up.
    private enum Operation {
        /// Nothing: the caller wrote the image; a concat's inputs wrote its slices.
        case none
        /// A convolution with its epilogue (bias, residual, ReLU).
        case convolution(Layer, input: Tensor, output: Tensor, epilogue: Epilogue)
        /// The stem's 3×3 stride-2 max pool.
        case maxPool(Tensor, into: Tensor)
        /// Adds the first tensor upsampled into the second, in place.
        case addUpsampled(Tensor, into: Tensor)
        /// A bilinear resize into a concat's slice.
        case resize(Tensor, into: Tensor, taps: BilinearResizeTaps)
        /// The caller's gathered `volume` → the BEV neck's input.
        case spaceToChannel(into: Tensor)
        /// The fused head convolutions, written candidate-major into `headOutput`.
        case head(Convolution, input: Tensor)
    }

    /// One layer of a pass.
    private struct Step {
        /// The layer's name, for profiles.
        let name: String
        let operation: Operation
        /// Floating-point operations, for profiles.
        let flops: Int
        /// The quantization point the output is written under and the tensor, for the observer.
        let observed: (point: String, tensor: Tensor)?
    }

    let context: ComputeContext
    private let arena: TensorArena
    private let steps: (backbone: [Step], head: [Step])
    /// Winograd scratch: transformed inputs and the 36 GEMM products, one pair per worker, each set
    /// contiguous so that a layer without blocks uses it whole from its first pointer.
    private let winogradInput: [UnsafeMutablePointer<Float>], winogradProducts: [UnsafeMutablePointer<Float>]

    /// `[3, 256, 512]` normalised planar RGB input.
    let image: Tensor
    /// `[64, 64, 128]` output of the backbone half.
    let features: Tensor
    /// `[64, 6560]` BEV volume, input of the head half.
    let volume: Tensor
    /// `[840, 120]` candidate-major head outputs: per pixel 32 class, 72 box and 16 direction values.
    let headOutput: UnsafeMutablePointer<Float>

    /// Per-worker im2col scratch, floats.
    static let scratchPerWorker = 1 << 20

    /// Per-layer timings of the last pass, when enabled (`nil` keeps the hot path free of clocks).
    var profile: [LayerTiming]?

    /// Sees every quantization point's tensor (`Safety40QuantizationGraph`) as the pass writes it,
    /// for calibrating INT8 (`Safety40Quantizer`); `nil` in inference.
    var observer: ((String, Tensor) -> Void)?

    init(weights: Safety40Weights, blas: OpenBLAS, threads: Int) {
        let workers = max(1, threads), graph = Safety40Graph.self, alignment = TensorArena.alignment
        // Convolutions in the form they run: 3×3 stride-1 ones on maps large enough, as Winograd.
        // Its scratch: a layer run in blocks needs one block's buffers per worker; a layer run
        // without blocks needs one buffer for the whole map, which is all workers' buffers together
        // (they are laid out contiguously), so that it costs no memory of its own.
        var layers: [String: Layer] = [:]
        var blockInput = 0, blockProducts = 0, wholeInput = 0, wholeProducts = 0
        for layer in graph.executionOrder {
            guard let spec = layer.convolution, !graph.isFusedIntoOutput(layer.name) else { continue }
            let conv = weights.convolution(layer.name), size = layer.shape
            guard WinogradConvolution.suits(kernel: spec.kernel, stride: spec.stride, outputHeight: size.height, outputWidth: size.width)
            else {
                layers[layer.name] = .direct(conv)
                continue
            }
            let plan = WinogradPlan(height: size.height, width: size.width, threads: workers)
            let input = 36 * conv.inChannels * plan.bufferTiles, products = 36 * conv.outChannels * plan.bufferTiles
            if plan.blocks > 0 {
                (blockInput, blockProducts) = (max(blockInput, input), max(blockProducts, products))
            } else {
                (wholeInput, wholeProducts) = (max(wholeInput, input), max(wholeProducts, products))
            }
            layers[layer.name] = .winograd(WinogradConvolution(conv), flops: 2 * conv.outChannels * conv.reduction * size.plane)
        }
        func perWorker(_ block: Int, _ whole: Int) -> Int {
            let count = max(block, (whole + workers - 1) / workers)
            return (count + alignment - 1) / alignment * alignment
        }
        let inputPerWorker = perWorker(blockInput, wholeInput), productsPerWorker = perWorker(blockProducts, wholeProducts)

        // The caller writes the image and reads the features, volume and head outputs between
        // passes, so those never share a buffer.
        let plan = ActivationPlan(pinned: [graph.image.name, graph.gather.inputs[0], graph.output.name])
        let volumeCount = Safety40.featureChannels * Safety40.voxelCount
        let arena = TensorArena(
            capacity: plan.slots.reduce(0) { $0 + $1 + alignment } + volumeCount + alignment
                + workers * (Safety40Network.scratchPerWorker + alignment) + workers * (inputPerWorker + productsPerWorker) + 2 * alignment)
        self.arena = arena
        let slots = plan.slots.map(arena.take)
        func tensor(_ name: String) -> Tensor {
            guard let place = plan.places[name] else { preconditionFailure("\(name) has no FP32 buffer") }
            let shape = graph.layer(name).shape
            return Tensor(data: slots[place.slot] + place.channel * shape.plane, channels: shape.channels, height: shape.height, width: shape.width)
        }
        image = tensor(graph.image.name)
        features = tensor(graph.gather.inputs[0])
        volume = Tensor(data: arena.take(volumeCount), channels: Safety40.featureChannels, height: 1, width: Safety40.voxelCount)
        headOutput = tensor(graph.output.name).data
        let input = arena.take(workers * inputPerWorker), products = arena.take(workers * productsPerWorker)
        winogradInput = (0..<workers).map { input + $0 * inputPerWorker }
        winogradProducts = (0..<workers).map { products + $0 * productsPerWorker }
        context = ComputeContext(blas: blas, threads: workers, arena: arena, scratchCount: Safety40Network.scratchPerWorker)

        func step(_ layer: Safety40Layer) -> Step? {
            // The head's convolutions run as the output layer's one GEMM.
            if graph.isFusedIntoOutput(layer.name) { return nil }
            let output = tensor(layer.name)
            let operation: Operation, flops: Int
            switch layer.operation {
            case .image, .concat:
                (operation, flops) = (.none, 0)
            case .convolution:
                guard let conv = layers[layer.name] else { preconditionFailure("no convolution \(layer.name)") }
                let epilogue = Epilogue(residual: layer.residual.map(tensor), relu: layer.relu)
                operation = .convolution(conv, input: tensor(layer.inputs[0]), output: output, epilogue: epilogue)
                switch conv {
                case .direct(let conv): flops = 2 * conv.outChannels * conv.reduction * output.plane
                case .winograd(_, let winogradFlops): flops = winogradFlops
                }
            case .maxPool:
                (operation, flops) = (.maxPool(tensor(layer.inputs[0]), into: output), 0)
            case .addUpsampled:
                let sum = tensor(layer.inputs[0])
                precondition(sum.data == output.data, "\(layer.name): the FP32 add runs in place")
                (operation, flops) = (.addUpsampled(tensor(layer.inputs[1]), into: sum), 0)
            case .resize:
                let source = tensor(layer.inputs[0])
                (operation, flops) = (.resize(source, into: output, taps: BilinearResizeTaps(source: source, target: output)), 0)
            case .bevGather:
                (operation, flops) = (.spaceToChannel(into: output), 0)
            case .headOutput:
                let parts = layer.inputs.map(weights.convolution)
                guard let first = parts.first, let source = graph.layer(first.name).inputs.first else { preconditionFailure("\(layer.name): no input") }
                let head = Convolution(
                    name: layer.name, inChannels: first.inChannels, outChannels: layer.shape.channels, kernelSize: 1, stride: 1, padding: 0,
                    weights: parts.flatMap(\.weights), bias: parts.flatMap(\.bias))
                let input = tensor(source)
                (operation, flops) = (.head(head, input: input), 2 * head.outChannels * head.inChannels * input.plane)
            }
            let observed: (point: String, tensor: Tensor)? = Safety40QuantizationGraph.point(of: layer.name) == layer.name ? (layer.name, output) : nil
            return Step(name: layer.name, operation: operation, flops: flops, observed: observed)
        }
        steps = (graph.halves.backbone.compactMap(step), graph.halves.head.compactMap(step))
    }

    /// `image` → `features`: ResNet-18, FPN, bilinear fuse.
    func runBackbone() {
        for step in steps.backbone { run(step) }
    }

    /// `volume` → `headOutput`: space-to-channel, BEV neck, fused anchor head.
    func runHead() {
        for step in steps.head { run(step) }
    }

    private func run(_ step: Step) {
        switch step.operation {
        case .none:
            break
        case .convolution(.direct(let conv), let input, let output, let epilogue):
            timed(step.name, flops: step.flops) { context.convolve(conv, input, into: output, epilogue) }
        case .convolution(.winograd(let conv, _), let input, let output, let epilogue):
            timed(step.name, flops: step.flops) {
                context.convolve(conv, input, into: output, epilogue, transformed: winogradInput, products: winogradProducts)
            }
        case .maxPool(let input, let output):
            timed(step.name) { context.maxPool3x3Stride2(input, into: output) }
        case .addUpsampled(let source, let target):
            timed(step.name) { context.addNearestUpsampled(source, into: target) }
        case .resize(let source, let target, let taps):
            timed(step.name) { context.resizeBilinear(source, into: target, taps: taps) }
        case .spaceToChannel(let output):
            timed(step.name) {
                context.spaceToChannel(volume: volume.data, channels: volume.channels, depth: output.channels / volume.channels, into: output)
            }
        case .head(let conv, let input):
            timed(step.name, flops: step.flops) { context.pointwiseTransposed(conv, input, into: headOutput) }
        }
        if let observer, let observed = step.observed { observer(observed.point, observed.tensor) }
    }
}

/// Where each layer's FP32 output lives: buffers ("slots") of the arena, each reused once the last
/// reader of the layer that held it has run, so that a pass needs far fewer buffers than layers.
///
/// A concat's inputs are written into its slices; an FPN sum runs in place on its first input
/// (whose last reader it is); the head's convolutions have no output of their own (the output
/// layer reads their input). Pinned layers get a slot of their own, never reused.
private struct ActivationPlan {
    /// Floats of each slot.
    private(set) var slots: [Int] = []
    /// Per layer: its slot, and its first channel there (nonzero in a concat's slice).
    private(set) var places: [String: (slot: Int, channel: Int)] = [:]

    init(pinned: Set<String>) {
        let graph = Safety40Graph.self, order = graph.executionOrder
        /// What a layer reads: the output layer reads the input of the convolutions it fuses.
        func reads(_ layer: Safety40Layer) -> [String] {
            if graph.isFusedIntoOutput(layer.name) { return [] }
            if layer.operation == .headOutput { return layer.inputs.flatMap { graph.layer($0).inputs } }
            return layer.inputs + (layer.residual.map { [$0] } ?? [])
        }
        var lastRead: [String: Int] = [:]
        for (i, layer) in order.enumerated() { for name in reads(layer) { lastRead[name] = i } }
        var free: [Int] = [], owner: [String: Int] = [:]
        for (i, layer) in order.enumerated() where !graph.isFusedIntoOutput(layer.name) {
            if case (let concat, let channel)? = graph.concatSlice(of: layer.name) {
                // The concat's slot opens with its first input and lives until its last reader.
                let slot: Int
                if let placed = places[concat.name] {
                    slot = placed.slot
                } else {
                    slot = place(concat, free: &free)
                    owner[concat.name] = slot
                }
                places[layer.name] = (slot, channel)
            } else if places[layer.name] == nil, pinned.contains(layer.name) {
                slots.append(layer.shape.count)
                places[layer.name] = (slots.count - 1, 0)
            } else if places[layer.name] == nil, layer.operation == .addUpsampled {
                // The FP32 kernel adds into its first input, which must have no reader after it.
                let sum = layer.inputs[0]
                guard lastRead[sum] == i, let slot = owner.removeValue(forKey: sum) else {
                    preconditionFailure("\(layer.name): \(sum) is read after the in-place add")
                }
                places[layer.name] = (slot, 0)
                owner[layer.name] = slot
            } else if places[layer.name] == nil {
                owner[layer.name] = place(layer, free: &free)
            }
            // In reading order, so that the plan is the same in every process (a name read twice
            // is freed once: its owner is gone the second time).
            for name in reads(layer) where lastRead[name] == i && !pinned.contains(name) {
                if let slot = owner.removeValue(forKey: name) { free.append(slot) }
            }
        }
    }

    /// Places `layer` in the smallest free slot that holds it, else grows the largest free slot,
    /// else opens a new one; returns the slot.
    private mutating func place(_ layer: Safety40Layer, free: inout [Int]) -> Int {
        let count = layer.shape.count
        let fitting = free.indices.filter { slots[free[$0]] >= count }.min { slots[free[$0]] < slots[free[$1]] }
        let slot: Int
        if let index = fitting ?? free.indices.max(by: { slots[free[$0]] < slots[free[$1]] }) {
            slot = free.remove(at: index)
            slots[slot] = max(slots[slot], count)
        } else {
            slots.append(count)
            slot = slots.count - 1
        }
        places[layer.name] = (slot, 0)
        return slot
    }
}
