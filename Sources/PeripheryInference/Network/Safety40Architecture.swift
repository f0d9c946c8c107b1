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

/// The weights of Safety40 (`docs/reference/network.md`), named as in the Fast-BEV / mmdet3d checkpoint: the
/// convolutions of `Safety40Graph`, in its (checkpoint) order.
enum Safety40Architecture {
    /// Every convolution, in checkpoint order.
    static let convolutions: [ConvolutionSpec] = Safety40Graph.layers.compactMap { layer in
        guard let conv = layer.convolution, let input = layer.inputs.first else { return nil }
        return ConvolutionSpec(
            conv: layer.name, batchNorm: layer.batchNorm, inChannels: Safety40Graph.layer(input).shape.channels,
            outChannels: layer.shape.channels, kernelSize: conv.kernel, stride: conv.stride, hasBias: conv.bias)
    }

    /// Trainable parameters of the whole network (15,206,520).
    static var parameterCount: Int { convolutions.reduce(0) { $0 + $1.parameterCount } }
}
