import PeripheryCore

/// What one layer of the Safety40 graph computes (docs/reference/network.md).
enum Safety40Operation: Equatable, Sendable {
    /// The network's input, normalised planar RGB, which the caller writes.
    case image
    /// A cross-correlation with zero padding `kernel / 2`; a batch norm after it is folded in at load.
    case convolution(kernel: Int, stride: Int, bias: Bool)
    /// 3×3 max pooling, stride 2, padding 1 with −∞.
    case maxPool
    /// The first input plus the second upsampled 2× nearest: the FPN's top-down path.
    case addUpsampled
    /// Bilinear resize (`align_corners = False`) of the input to the height and width of layer `like`.
    case resize(like: String)
    /// The inputs stacked along channels, in order; each input is written straight into its slice.
    case concat
    /// The ProjectionLUT gather of the input's features into the BEV volume, its depth cells
    /// stacked along channels (M2BevNeck's space-to-channel, channel `z · C + c`).
    case bevGather
    /// The network's output: per BEV pixel the inputs' channels in order, as floats (the anchor
    /// head's 1×1 convolutions, run as one candidate-major GEMM).
    case headOutput
}

/// A layer's output extent.
struct LayerShape: Equatable, Sendable {
    /// Channels.
    let channels: Int
    /// Rows.
    let height: Int
    /// Columns.
    let width: Int

    /// Elements per channel.
    var plane: Int { height * width }
    /// All elements.
    var count: Int { channels * plane }
}

/// One row of `Safety40Graph`: a layer, named as in the Fast-BEV / mmdet3d checkpoint where it
/// has weights.
struct Safety40Layer: Sendable {
    /// Checkpoint name of the layer (`<name>.weight`), or the graph's name for one without weights.
    let name: String
    /// What the layer computes.
    let operation: Safety40Operation
    /// Layers whose outputs it reads, in the operation's order.
    let inputs: [String]
    /// Layer whose output is added before the activation (a residual shortcut).
    let residual: String?
    /// Whether ReLU follows (after the residual add).
    let relu: Bool
    /// Tensor prefix of the batch norm after a convolution.
    let batchNorm: String?
    /// Output `[channels, height, width]`: channels as declared, height and width derived from the
    /// inputs by `Safety40Graph` (declared only for the image and the BEV gather).
    fileprivate(set) var shape: LayerShape

    /// Kernel, stride and bias of a convolution; `nil` for any other operation.
    var convolution: (kernel: Int, stride: Int, bias: Bool)? {
        switch operation {
        case .convolution(let kernel, let stride, let bias): (kernel, stride, bias)
        default: nil
        }
    }

    /// Zero padding of a convolution (`kernel / 2`), 0 for any other operation.
    var padding: Int {
        switch operation {
        case .convolution(let kernel, _, _): kernel / 2
        default: 0
        }
    }
}

/// The Safety40 network as one declarative table: every layer, its inputs, output channels,
/// kernel, stride, activation, residual and batch norm. The architecture spec
/// (`Safety40Architecture`), the quantization points (`Safety40QuantizationGraph`), the FP32
/// network with its choice of Winograd layers, and the INT8 network are all read off this table,
/// so a change to the model is one edit here.
///
/// Rows are in checkpoint order (the order of `Safety40Architecture.convolutions` and of the
/// tensors of an INT8 file). A pass runs them in `executionOrder`: each row as soon as the layers
/// it reads exist, the earliest such row first.
enum Safety40Graph {
    /// Every layer in checkpoint order, its shape resolved.
    static let layers: [Safety40Layer] = resolved.layers

    /// The layers in the order a pass runs them.
    static let executionOrder: [Safety40Layer] = resolved.order

    /// The image half of a pass (image → features) and the BEV half (from the gather on), in
    /// execution order: the LUT gather between them belongs to the caller.
    static let halves: (backbone: [Safety40Layer], head: [Safety40Layer]) = {
        guard let gather = executionOrder.firstIndex(where: { $0.operation == .bevGather }) else {
            preconditionFailure("Safety40Graph has no BEV gather")
        }
        return (Array(executionOrder[..<gather]), Array(executionOrder[gather...]))
    }()

    /// The network's input layer.
    static var image: Safety40Layer { only(.image) }
    /// The BEV gather: its input is the network's `features`.
    static var gather: Safety40Layer { only(.bevGather) }
    /// The network's output layer.
    static var output: Safety40Layer { only(.headOutput) }

    /// The layer named `name` (a table name, so always present).
    static func layer(_ name: String) -> Safety40Layer {
        guard let index = resolved.index[name] else { preconditionFailure("no layer \(name) in Safety40Graph") }
        return layers[index]
    }

    /// The layers that read `name`'s output as an input (not as a residual), in execution order.
    static func readers(of name: String) -> [Safety40Layer] {
        executionOrder.filter { $0.inputs.contains(name) }
    }

    /// Whether `name` is one of the output layer's convolutions, which have no output of their own.
    static func isFusedIntoOutput(_ name: String) -> Bool {
        output.inputs.contains(name)
    }

    /// The concat that `name` is written into and the first channel of its slice, if any.
    static func concatSlice(of name: String) -> (concat: Safety40Layer, channel: Int)? {
        guard let concat = readers(of: name).first(where: { $0.operation == .concat }),
            let position = concat.inputs.firstIndex(of: name)
        else { return nil }
        return (concat, concat.inputs[..<position].reduce(0) { $0 + layer($1).shape.channels })
    }

    /// The one layer of `operation`.
    private static func only(_ operation: Safety40Operation) -> Safety40Layer {
        guard let layer = layers.first(where: { $0.operation == operation }) else {
            preconditionFailure("Safety40Graph has no \(operation) layer")
        }
        return layer
    }

    // MARK: The table

    /// Anchors per BEV cell: each head convolution has its channels once per anchor.
    private static let anchors = Safety40.anchorsPerCell

    /// The rows; shapes other than the declared ones are filled in by `resolve`.
    private static let table: [Safety40Layer] = [
        image("image", channels: 3, height: Safety40.inputHeight, width: Safety40.inputWidth),
        // ResNet-18 (§1).
        conv("backbone.conv1", "image", bn: "backbone.bn1", 64, k: 7, s: 2, relu: true),
        maxPool("backbone.maxpool", "backbone.conv1"),
        conv("backbone.layer1.0.conv1", "backbone.maxpool", bn: "backbone.layer1.0.bn1", 64, k: 3, relu: true),
        conv(
            "backbone.layer1.0.conv2", "backbone.layer1.0.conv1", bn: "backbone.layer1.0.bn2", 64, k: 3, relu: true,
            residual: "backbone.maxpool"),
        conv("backbone.layer1.1.conv1", "backbone.layer1.0.conv2", bn: "backbone.layer1.1.bn1", 64, k: 3, relu: true),
        conv(
            "backbone.layer1.1.conv2", "backbone.layer1.1.conv1", bn: "backbone.layer1.1.bn2", 64, k: 3, relu: true,
            residual: "backbone.layer1.0.conv2"),
        conv("backbone.layer2.0.conv1", "backbone.layer1.1.conv2", bn: "backbone.layer2.0.bn1", 128, k: 3, s: 2, relu: true),
        conv(
            "backbone.layer2.0.conv2", "backbone.layer2.0.conv1", bn: "backbone.layer2.0.bn2", 128, k: 3, relu: true,
            residual: "backbone.layer2.0.downsample.0"),
        conv("backbone.layer2.0.downsample.0", "backbone.layer1.1.conv2", bn: "backbone.layer2.0.downsample.1", 128, k: 1, s: 2, relu: false),
        conv("backbone.layer2.1.conv1", "backbone.layer2.0.conv2", bn: "backbone.layer2.1.bn1", 128, k: 3, relu: true),
        conv(
            "backbone.layer2.1.conv2", "backbone.layer2.1.conv1", bn: "backbone.layer2.1.bn2", 128, k: 3, relu: true,
            residual: "backbone.layer2.0.conv2"),
        conv("backbone.layer3.0.conv1", "backbone.layer2.1.conv2", bn: "backbone.layer3.0.bn1", 256, k: 3, s: 2, relu: true),
        conv(
            "backbone.layer3.0.conv2", "backbone.layer3.0.conv1", bn: "backbone.layer3.0.bn2", 256, k: 3, relu: true,
            residual: "backbone.layer3.0.downsample.0"),
        conv("backbone.layer3.0.downsample.0", "backbone.layer2.1.conv2", bn: "backbone.layer3.0.downsample.1", 256, k: 1, s: 2, relu: false),
        conv("backbone.layer3.1.conv1", "backbone.layer3.0.conv2", bn: "backbone.layer3.1.bn1", 256, k: 3, relu: true),
        conv(
            "backbone.layer3.1.conv2", "backbone.layer3.1.conv1", bn: "backbone.layer3.1.bn2", 256, k: 3, relu: true,
            residual: "backbone.layer3.0.conv2"),
        conv("backbone.layer4.0.conv1", "backbone.layer3.1.conv2", bn: "backbone.layer4.0.bn1", 512, k: 3, s: 2, relu: true),
        conv(
            "backbone.layer4.0.conv2", "backbone.layer4.0.conv1", bn: "backbone.layer4.0.bn2", 512, k: 3, relu: true,
            residual: "backbone.layer4.0.downsample.0"),
        conv("backbone.layer4.0.downsample.0", "backbone.layer3.1.conv2", bn: "backbone.layer4.0.downsample.1", 512, k: 1, s: 2, relu: false),
        conv("backbone.layer4.1.conv1", "backbone.layer4.0.conv2", bn: "backbone.layer4.1.bn1", 512, k: 3, relu: true),
        conv(
            "backbone.layer4.1.conv2", "backbone.layer4.1.conv1", bn: "backbone.layer4.1.bn2", 512, k: 3, relu: true,
            residual: "backbone.layer4.0.conv2"),
        // FPN (§2): laterals on C2…C5, the top-down sums (level i plus level i + 1 upsampled), outputs.
        conv("neck.lateral_convs.0.conv", "backbone.layer1.1.conv2", bn: "neck.lateral_convs.0.bn", 64, k: 1, relu: false),
        conv("neck.lateral_convs.1.conv", "backbone.layer2.1.conv2", bn: "neck.lateral_convs.1.bn", 64, k: 1, relu: false),
        conv("neck.lateral_convs.2.conv", "backbone.layer3.1.conv2", bn: "neck.lateral_convs.2.bn", 64, k: 1, relu: false),
        conv("neck.lateral_convs.3.conv", "backbone.layer4.1.conv2", bn: "neck.lateral_convs.3.bn", 64, k: 1, relu: false),
        addUpsampled("neck.top_down.0", "neck.lateral_convs.0.conv", upsampled: "neck.top_down.1"),
        addUpsampled("neck.top_down.1", "neck.lateral_convs.1.conv", upsampled: "neck.top_down.2"),
        addUpsampled("neck.top_down.2", "neck.lateral_convs.2.conv", upsampled: "neck.lateral_convs.3.conv"),
        // The fuse (§3): P0 as it is and P1…P3 resized to its size, concatenated, then neck_fuse_0.
        conv("neck.fpn_convs.0.conv", "neck.top_down.0", bn: "neck.fpn_convs.0.bn", 64, k: 3, relu: false),
        conv("neck.fpn_convs.1.conv", "neck.top_down.1", bn: "neck.fpn_convs.1.bn", 64, k: 3, relu: false),
        resize("fuse.bilinear.1", "neck.fpn_convs.1.conv", like: "neck.fpn_convs.0.conv"),
        conv("neck.fpn_convs.2.conv", "neck.top_down.2", bn: "neck.fpn_convs.2.bn", 64, k: 3, relu: false),
        resize("fuse.bilinear.2", "neck.fpn_convs.2.conv", like: "neck.fpn_convs.0.conv"),
        conv("neck.fpn_convs.3.conv", "neck.lateral_convs.3.conv", bn: "neck.fpn_convs.3.bn", 64, k: 3, relu: false),
        resize("fuse.bilinear.3", "neck.fpn_convs.3.conv", like: "neck.fpn_convs.0.conv"),
        concat("neck.concat", ["neck.fpn_convs.0.conv", "fuse.bilinear.1", "fuse.bilinear.2", "fuse.bilinear.3"]),
        conv("neck_fuse_0", "neck.concat", bn: nil, Safety40.featureChannels, k: 3, relu: false, bias: true),
        // The gather (§4) and the BEV neck (§5): ResModule2D blocks add their input back.
        bevGather(
            "neck_3d.space_to_channel", "neck_fuse_0", channels: Safety40.voxelCountZ * Safety40.featureChannels,
            height: Safety40.voxelCountX, width: Safety40.voxelCountY),
        conv("neck_3d.fuse", "neck_3d.space_to_channel", bn: nil, 256, k: 1, relu: false, bias: true),
        conv("neck_3d.model.0.conv0.conv", "neck_3d.fuse", bn: "neck_3d.model.0.conv0.bn", 256, k: 3, relu: true),
        conv(
            "neck_3d.model.0.conv1.conv", "neck_3d.model.0.conv0.conv", bn: "neck_3d.model.0.conv1.bn", 256, k: 3, relu: true,
            residual: "neck_3d.fuse"),
        conv("neck_3d.model.1.conv", "neck_3d.model.0.conv1.conv", bn: "neck_3d.model.1.bn", 192, k: 3, s: 2, relu: true),
        conv("neck_3d.model.2.conv0.conv", "neck_3d.model.1.conv", bn: "neck_3d.model.2.conv0.bn", 192, k: 3, relu: true),
        conv(
            "neck_3d.model.2.conv1.conv", "neck_3d.model.2.conv0.conv", bn: "neck_3d.model.2.conv1.bn", 192, k: 3, relu: true,
            residual: "neck_3d.model.1.conv"),
        conv("neck_3d.model.3.conv", "neck_3d.model.2.conv1.conv", bn: "neck_3d.model.3.bn", 192, k: 3, relu: true),
        conv("neck_3d.model.4.conv0.conv", "neck_3d.model.3.conv", bn: "neck_3d.model.4.conv0.bn", 192, k: 3, relu: true),
        conv(
            "neck_3d.model.4.conv1.conv", "neck_3d.model.4.conv0.conv", bn: "neck_3d.model.4.conv1.bn", 192, k: 3, relu: true,
            residual: "neck_3d.model.3.conv"),
        conv("neck_3d.model.5.conv", "neck_3d.model.4.conv1.conv", bn: "neck_3d.model.5.bn", 192, k: 3, relu: true),
        // The anchor head (§6).
        conv("bbox_head.conv_cls", "neck_3d.model.5.conv", bn: nil, anchors * Safety40.classChannels, k: 1, relu: false, bias: true),
        conv("bbox_head.conv_reg", "neck_3d.model.5.conv", bn: nil, anchors * Safety40.boxCodeChannels, k: 1, relu: false, bias: true),
        conv("bbox_head.conv_dir_cls", "neck_3d.model.5.conv", bn: nil, anchors * Safety40.directionChannels, k: 1, relu: false, bias: true),
        headOutput("bbox_head", ["bbox_head.conv_cls", "bbox_head.conv_reg", "bbox_head.conv_dir_cls"]),
    ]

    // MARK: Rows

    /// A row with everything spelled out; the helpers below fill in what their operation needs.
    private static func row(
        _ name: String, _ operation: Safety40Operation, _ inputs: [String], channels: Int, residual: String? = nil,
        relu: Bool = false, bn: String? = nil, height: Int = 0, width: Int = 0
    ) -> Safety40Layer {
        Safety40Layer(
            name: name, operation: operation, inputs: inputs, residual: residual, relu: relu, batchNorm: bn,
            shape: LayerShape(channels: channels, height: height, width: width))
    }

    /// The input, of a declared shape.
    private static func image(_ name: String, channels: Int, height: Int, width: Int) -> Safety40Layer {
        row(name, .image, [], channels: channels, height: height, width: width)
    }

    /// A convolution: `k`×`k`, stride `s`, `channels` out, then its batch norm, the residual and ReLU.
    private static func conv(
        _ name: String, _ input: String, bn: String?, _ channels: Int, k: Int, s: Int = 1, relu: Bool, residual: String? = nil,
        bias: Bool = false
    ) -> Safety40Layer {
        row(name, .convolution(kernel: k, stride: s, bias: bias), [input], channels: channels, residual: residual, relu: relu, bn: bn)
    }

    /// The stem's max pool.
    private static func maxPool(_ name: String, _ input: String) -> Safety40Layer {
        row(name, .maxPool, [input], channels: 0)
    }

    /// An FPN top-down sum: `input` plus `upsampled` at twice its size.
    private static func addUpsampled(_ name: String, _ input: String, upsampled: String) -> Safety40Layer {
        row(name, .addUpsampled, [input, upsampled], channels: 0)
    }

    /// A bilinear resize to the size of `like`.
    private static func resize(_ name: String, _ input: String, like: String) -> Safety40Layer {
        row(name, .resize(like: like), [input], channels: 0)
    }

    /// A concat of `inputs` along channels.
    private static func concat(_ name: String, _ inputs: [String]) -> Safety40Layer {
        row(name, .concat, inputs, channels: 0)
    }

    /// The LUT gather onto the BEV grid, of a declared shape.
    private static func bevGather(_ name: String, _ input: String, channels: Int, height: Int, width: Int) -> Safety40Layer {
        row(name, .bevGather, [input], channels: channels, height: height, width: width)
    }

    /// The network's output, fusing the head convolutions `inputs`.
    private static func headOutput(_ name: String, _ inputs: [String]) -> Safety40Layer {
        row(name, .headOutput, inputs, channels: 0)
    }

    // MARK: Resolution

    /// The table with its shapes resolved, its execution order and an index by name.
    private static let resolved: (layers: [Safety40Layer], order: [Safety40Layer], index: [String: Int]) = resolve(table)

    /// Orders the rows (each once the layers it reads exist, the earliest row first), derives
    /// every shape along that order and checks that the layers fit together.
    private static func resolve(_ rows: [Safety40Layer]) -> (layers: [Safety40Layer], order: [Safety40Layer], index: [String: Int]) {
        var index: [String: Int] = [:]
        for (i, row) in rows.enumerated() {
            precondition(index.updateValue(i, forKey: row.name) == nil, "Safety40Graph: \(row.name) twice")
        }
        func dependencies(_ row: Safety40Layer) -> [String] {
            var names = row.inputs + (row.residual.map { [$0] } ?? [])
            if case .resize(let like) = row.operation { names.append(like) }
            return names
        }
        for row in rows {
            for name in dependencies(row) { precondition(index[name] != nil, "Safety40Graph: \(row.name) reads unknown \(name)") }
        }
        var layers = rows, order: [Int] = [], done = Set<String>()
        while order.count < rows.count {
            guard let next = rows.indices.first(where: { !done.contains(rows[$0].name) && dependencies(rows[$0]).allSatisfy(done.contains) })
            else { preconditionFailure("Safety40Graph: a cycle among its layers") }
            layers[next].shape = shape(of: rows[next]) { name in
                guard let i = index[name] else { preconditionFailure("Safety40Graph: unknown \(name)") }
                return layers[i].shape
            }
            order.append(next)
            done.insert(rows[next].name)
        }
        check(layers) { name in
            guard let i = index[name] else { preconditionFailure("Safety40Graph: unknown \(name)") }
            return layers[i]
        }
        return (layers, order.map { layers[$0] }, index)
    }

    /// Checks the resolved table against what its readers assume: the contract's feature map and
    /// head grid (`Safety40`), and an output made of 1×1 convolutions of one map (one GEMM).
    private static func check(_ layers: [Safety40Layer], _ layerNamed: (String) -> Safety40Layer) {
        for layer in layers where layer.operation == .bevGather {
            let features = layerNamed(layer.inputs[0]).shape
            precondition(
                features == LayerShape(channels: Safety40.featureChannels, height: Safety40.featureHeight, width: Safety40.featureWidth)
                    && layer.shape.channels == Safety40.voxelCountZ * features.channels, "\(layer.name): not the contract's features")
        }
        for layer in layers where layer.operation == .headOutput {
            let convolutions = layer.inputs.map(layerNamed)
            precondition(
                convolutions.allSatisfy { $0.convolution?.kernel == 1 && $0.convolution?.stride == 1 && $0.inputs == convolutions[0].inputs },
                "\(layer.name): the output fuses 1×1 convolutions of one map")
            precondition(layer.shape.height == Safety40.headCellsX && layer.shape.width == Safety40.headCellsY, "\(layer.name): not the head grid")
        }
    }

    /// The output shape of `row`, given its inputs' shapes.
    private static func shape(of row: Safety40Layer, _ shapeOf: (String) -> LayerShape) -> LayerShape {
        let inputs = row.inputs.map(shapeOf)
        let declared = row.shape, name = row.name
        func sized(_ channels: Int, _ height: Int, _ width: Int) -> LayerShape {
            LayerShape(channels: channels, height: height, width: width)
        }
        let shape: LayerShape
        switch row.operation {
        case .image, .bevGather:
            shape = declared
        case .convolution(let kernel, let stride, _):
            let input = inputs[0], pad = kernel / 2
            shape = sized(declared.channels, (input.height + 2 * pad - kernel) / stride + 1, (input.width + 2 * pad - kernel) / stride + 1)
        case .maxPool:
            shape = sized(inputs[0].channels, (inputs[0].height - 1) / 2 + 1, (inputs[0].width - 1) / 2 + 1)
        case .addUpsampled:
            precondition(inputs[1] == sized(inputs[0].channels, inputs[0].height / 2, inputs[0].width / 2), "\(name): 2× nearest sizes")
            shape = inputs[0]
        case .resize(let like):
            let target = shapeOf(like)
            shape = sized(inputs[0].channels, target.height, target.width)
        case .concat, .headOutput:
            precondition(inputs.allSatisfy { $0.plane == inputs[0].plane }, "\(name): inputs of different sizes")
            shape = sized(inputs.reduce(0) { $0 + $1.channels }, inputs[0].height, inputs[0].width)
        }
        if let residual = row.residual { precondition(shapeOf(residual) == shape, "\(name): residual \(residual) of another shape") }
        return shape
    }
}
