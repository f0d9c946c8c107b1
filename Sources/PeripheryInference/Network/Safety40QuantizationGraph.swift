/// Where the INT8 network quantizes its activations: one per-tensor (scale, zero point) per
/// *point*, named after the layer of `Safety40Graph` that writes the tensor: the image, every
/// convolution but the head's, the FPN top-down sums and the fuse's concat.
///
/// The quantizer observes these points in the FP32 network and the INT8 network reads every
/// tensor with the parameters of the point that wrote it, so both read them from here.
enum Safety40QuantizationGraph {
    /// The point a layer's output is quantized under, `nil` for the float head outputs:
    /// - a layer written into a concat's slice takes the concat's point, because a convolution
    ///   reads its whole input with one scale;
    /// - a max pool and the BEV gather keep their input's (a max commutes with the quantization,
    ///   the gather copies bytes);
    /// - the head's convolutions and the output are floats;
    /// - every other layer is a point of its own.
    static func point(of layer: String) -> String? { layerPoints[layer] }

    /// Every point, in the order of an INT8 file: the image, the convolutions, then the layers
    /// without weights, each in checkpoint order.
    static let points: [String] = {
        func rank(_ layer: Safety40Layer) -> Int {
            layer.operation == .image ? 0 : layer.convolution != nil ? 1 : 2
        }
        let own = Safety40Graph.layers.filter { point(of: $0.name) == $0.name }
        return (0...2).flatMap { r in own.filter { rank($0) == r }.map(\.name) }
    }()

    /// Each layer's point, resolved along the execution order (a max pool's input comes first).
    private static let layerPoints: [String: String] = {
        var points: [String: String] = [:]
        for layer in Safety40Graph.executionOrder {
            let point: String?
            if let slice = Safety40Graph.concatSlice(of: layer.name) {
                point = slice.concat.name
            } else {
                switch layer.operation {
                case .maxPool, .bevGather: point = points[layer.inputs[0]]
                case .headOutput: point = nil
                case .convolution where Safety40Graph.isFusedIntoOutput(layer.name): point = nil
                case .image, .convolution, .addUpsampled, .resize, .concat: point = layer.name
                }
            }
            points[layer.name] = point
        }
        return points
    }()
}
