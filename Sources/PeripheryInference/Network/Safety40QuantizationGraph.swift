/// Where the INT8 network quantizes its activations: one per-tensor (scale, zero point) per
/// *point*, named after the convolution that writes the tensor, plus the network input, the FPN
/// top-down sums and the fuse's concat.
///
/// The quantizer observes these points in the FP32 network and the INT8 network reads every
/// tensor with the parameters of the point that wrote it, so both must agree on this one table.
enum Safety40QuantizationGraph {
    /// The normalised input image.
    static let image = "image"
    /// The concat of the four resized FPN outputs that `neck_fuse_0` reads: one point, because
    /// a convolution reads its whole input with one scale. FPN output 0 is written straight into it.
    static let concat = "neck.concat"
    /// Lateral `i` after the top-down add of the level above (`i` in 0..<3; lateral 3 has none).
    static func topDown(_ i: Int) -> String { "neck.top_down.\(i)" }

    /// The anchor-head convolutions: their outputs are the float head outputs, not quantized.
    static let headConvolutions: Set<String> = ["bbox_head.conv_cls", "bbox_head.conv_reg", "bbox_head.conv_dir_cls"]

    /// The point each convolution's input was written under.
    static let inputPoint: [String: String] = {
        var points: [String: String] = ["backbone.conv1": image]
        // The max pool keeps the stem's scale, so stage 1 reads the stem's point.
        var stageInput = "backbone.conv1"
        for block in Safety40Network.names.blocks {
            points[block.conv1] = stageInput
            if let downsample = block.downsample { points[downsample] = stageInput }
            points[block.conv2] = block.conv1
            points[block.conv3] = block.conv2
            points[block.conv4] = block.conv3
            stageInput = block.conv4
        }
        let names = Safety40Network.names
        for i in 0..<4 {
            points[names.laterals[i]] = names.blocks[i].conv4
            points[names.outputs[i]] = i == 3 ? names.laterals[3] : topDown(i)
        }
        points["neck_fuse_0"] = concat
        points["neck_3d.fuse"] = "neck_fuse_0"
        let chain = ["neck_3d.fuse", "neck_3d.model.0.conv0.conv", "neck_3d.model.0.conv1.conv", "neck_3d.model.1.conv",
                     "neck_3d.model.2.conv0.conv", "neck_3d.model.2.conv1.conv", "neck_3d.model.3.conv",
                     "neck_3d.model.4.conv0.conv", "neck_3d.model.4.conv1.conv", "neck_3d.model.5.conv"]
        for (reader, writer) in zip(chain.dropFirst(), chain) { points[reader] = writer }
        for head in headConvolutions { points[head] = "neck_3d.model.5.conv" }
        return points
    }()

    /// The point a convolution's output is written under; `nil` for the float head outputs.
    static func outputPoint(of conv: String) -> String? {
        if headConvolutions.contains(conv) { return nil }
        return conv == Safety40Network.names.outputs[0] ? concat : conv
    }

    /// Every point, in execution order.
    static let points: [String] = {
        var points = [image]
        for spec in Safety40Architecture.convolutions {
            guard let point = outputPoint(of: spec.conv), point != concat else { continue }
            points.append(point)
        }
        points += (0..<3).map(topDown) + [concat]
        return points
    }()
}
