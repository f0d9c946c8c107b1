/// One convolution of the Safety40 network and the batch norm after it, by checkpoint name.
struct ConvolutionSpec: Sendable {
    /// Tensor prefix of the convolution (`<conv>.weight`, `<conv>.bias`).
    let conv: String
    /// Tensor prefix of the batch norm that follows, if any.
    let batchNorm: String?
    let inChannels: Int
    let outChannels: Int
    let kernelSize: Int
    let stride: Int
    /// Whether the convolution itself has a bias in the unfolded network.
    let hasBias: Bool

    var padding: Int { kernelSize / 2 }

    /// Trainable parameters: weights, conv bias, BN weight and bias.
    var parameterCount: Int {
        outChannels * inChannels * kernelSize * kernelSize + (hasBias ? outChannels : 0) + (batchNorm == nil ? 0 : 2 * outChannels)
    }
}

/// The layers of Safety40 (`docs/network.md`), named as in the Fast-BEV / mmdet3d checkpoint.
enum Safety40Architecture {
    /// Channels of ResNet-18 stages C2…C5.
    static let stageChannels = [64, 128, 256, 512]
    /// FPN and feature channels.
    static let neckChannels = 64
    /// BEV neck channels after the stride-2 convolution.
    static let bevChannels = 192

    static func conv(
        _ name: String, bn: String?, _ cin: Int, _ cout: Int, k: Int, s: Int = 1, bias: Bool = false
    ) -> ConvolutionSpec {
        ConvolutionSpec(conv: name, batchNorm: bn, inChannels: cin, outChannels: cout, kernelSize: k, stride: s, hasBias: bias)
    }

    /// Every convolution, in execution order.
    static let convolutions: [ConvolutionSpec] = {
        var specs = [conv("backbone.conv1", bn: "backbone.bn1", 3, 64, k: 7, s: 2)]
        var inChannels = 64
        for (stage, channels) in stageChannels.enumerated() {
            for block in 0..<2 {
                let prefix = "backbone.layer\(stage + 1).\(block)."
                let stride = stage > 0 && block == 0 ? 2 : 1
                specs.append(conv(prefix + "conv1", bn: prefix + "bn1", inChannels, channels, k: 3, s: stride))
                specs.append(conv(prefix + "conv2", bn: prefix + "bn2", channels, channels, k: 3))
                if stride == 2 {
                    specs.append(conv(prefix + "downsample.0", bn: prefix + "downsample.1", inChannels, channels, k: 1, s: 2))
                }
                inChannels = channels
            }
        }
        for (i, channels) in stageChannels.enumerated() {
            specs.append(conv("neck.lateral_convs.\(i).conv", bn: "neck.lateral_convs.\(i).bn", channels, neckChannels, k: 1))
        }
        for i in 0..<4 {
            specs.append(conv("neck.fpn_convs.\(i).conv", bn: "neck.fpn_convs.\(i).bn", neckChannels, neckChannels, k: 3))
        }
        specs.append(conv("neck_fuse_0", bn: nil, 4 * neckChannels, neckChannels, k: 3, bias: true))
        specs.append(conv("neck_3d.fuse", bn: nil, 2 * neckChannels, 256, k: 1, bias: true))
        func resModule(_ prefix: String, _ channels: Int) -> [ConvolutionSpec] {
            [conv(prefix + "conv0.conv", bn: prefix + "conv0.bn", channels, channels, k: 3),
             conv(prefix + "conv1.conv", bn: prefix + "conv1.bn", channels, channels, k: 3)]
        }
        specs += resModule("neck_3d.model.0.", 256)
        specs.append(conv("neck_3d.model.1.conv", bn: "neck_3d.model.1.bn", 256, bevChannels, k: 3, s: 2))
        specs += resModule("neck_3d.model.2.", bevChannels)
        specs.append(conv("neck_3d.model.3.conv", bn: "neck_3d.model.3.bn", bevChannels, bevChannels, k: 3))
        specs += resModule("neck_3d.model.4.", bevChannels)
        specs.append(conv("neck_3d.model.5.conv", bn: "neck_3d.model.5.bn", bevChannels, bevChannels, k: 3))
        specs.append(conv("bbox_head.conv_cls", bn: nil, bevChannels, 8 * 4, k: 1, bias: true))
        specs.append(conv("bbox_head.conv_reg", bn: nil, bevChannels, 8 * 9, k: 1, bias: true))
        specs.append(conv("bbox_head.conv_dir_cls", bn: nil, bevChannels, 8 * 2, k: 1, bias: true))
        return specs
    }()

    /// Trainable parameters of the whole network (15,206,520).
    static var parameterCount: Int { convolutions.reduce(0) { $0 + $1.parameterCount } }
}
