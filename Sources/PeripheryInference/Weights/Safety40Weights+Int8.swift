/// The INT8 form of the Safety40 weights (`periphery quantize`, docs/guides/weights.md): per-channel int8
/// convolutions and the activation quantization of every point of `Safety40QuantizationGraph`.
struct Safety40Int8Weights: Sendable {
    let convolutions: [String: QuantizedConvolution]
    let activations: [String: ActivationQuantization]

    /// The `__metadata__` value of `precision` that marks an INT8 file.
    static let precision = "int8"

    /// Tensor names of a point's quantization.
    static func scaleName(_ point: String) -> String { "activation.\(point).scale" }
    static func zeroPointName(_ point: String) -> String { "activation.\(point).zero_point" }

    /// The convolution named `name` (an architecture name, so always present).
    func convolution(_ name: String) -> QuantizedConvolution {
        guard let conv = convolutions[name] else { preconditionFailure("no convolution \(name) in Safety40Architecture") }
        return conv
    }

    /// The quantization of `point` (a graph point, so always present).
    func activation(_ point: String) -> ActivationQuantization {
        guard let q = activations[point] else { preconditionFailure("no quantization point \(point)") }
        return q
    }

    /// Reads and validates an INT8 file: every convolution's `weight` (I8, −127…127),
    /// `weight_scale` (F32, finite and positive) and `bias` (F32, finite), and every point's
    /// `scale` (F32 [1], finite and positive) and `zero_point` (U8 [1]); nothing else.
    init(file: SafetensorsFile) throws(SafetensorsError) {
        var remaining = Set(file.tensors.keys)
        func info(_ name: String, shape: [Int]) throws(SafetensorsError) -> SafetensorsFile.TensorInfo {
            guard let info = file.tensors[name] else { throw .missingTensor(name) }
            guard info.shape == shape else { throw .wrongShape(tensor: name, expected: "\(shape)", actual: info.shape) }
            remaining.remove(name)
            return info
        }
        func floats(_ name: String, shape: [Int], positive: Bool) throws(SafetensorsError) -> [Float] {
            let tensor = try info(name, shape: shape)
            guard tensor.dtype == .f32 else { throw .wrongDtype(tensor: name, expected: "F32", actual: tensor.dtype.rawValue) }
            let values = try file.floats(name)
            if let bad = values.first(where: { !$0.isFinite }) { throw .invalidValue(tensor: name, reason: "non-finite value \(bad)") }
            if positive, let bad = values.first(where: { $0 <= 0 }) {
                throw .invalidValue(tensor: name, reason: "scale \(bad) is not positive")
            }
            return values
        }
        var convolutions: [String: QuantizedConvolution] = [:]
        for spec in Safety40Architecture.convolutions {
            let k = spec.kernelSize, cout = spec.outChannels, name = spec.conv + ".weight"
            _ = try info(name, shape: [cout, spec.inChannels, k, k])
            let weights = try file.bytes(name, dtype: .i8).map { Int8(bitPattern: $0) }
            if weights.contains(Int8.min) { throw .invalidValue(tensor: name, reason: "weight −128 outside the symmetric range −127…127") }
            convolutions[spec.conv] = QuantizedConvolution(
                name: spec.conv, inChannels: spec.inChannels, outChannels: cout, kernelSize: k, stride: spec.stride,
                padding: spec.padding, weights: weights,
                weightScales: try floats(spec.conv + ".weight_scale", shape: [cout], positive: true),
                bias: try floats(spec.conv + ".bias", shape: [cout], positive: false))
        }
        var activations: [String: ActivationQuantization] = [:]
        for point in Safety40QuantizationGraph.points {
            let scale = try floats(Self.scaleName(point), shape: [1], positive: true)[0]
            _ = try info(Self.zeroPointName(point), shape: [1])
            let zero = try file.bytes(Self.zeroPointName(point), dtype: .u8)[0]
            activations[point] = ActivationQuantization(scale: scale, zeroPoint: zero)
        }
        if let extra = remaining.sorted().first { throw .unexpectedTensor(extra) }
        self.convolutions = convolutions
        self.activations = activations
    }

    init(convolutions: [String: QuantizedConvolution], activations: [String: ActivationQuantization]) {
        self.convolutions = convolutions
        self.activations = activations
    }

    /// The file's tensors: what `init(file:)` reads back.
    func write(into writer: inout SafetensorsWriter) {
        for spec in Safety40Architecture.convolutions {
            let conv = convolution(spec.conv), k = conv.kernelSize
            writer.add(spec.conv + ".weight", shape: [conv.outChannels, conv.inChannels, k, k], int8: conv.weights)
            writer.add(spec.conv + ".weight_scale", shape: [conv.outChannels], values: conv.weightScales)
            writer.add(spec.conv + ".bias", shape: [conv.outChannels], values: conv.bias)
        }
        for point in Safety40QuantizationGraph.points {
            let q = activation(point)
            writer.add(Self.scaleName(point), shape: [1], values: [q.scale])
            writer.add(Self.zeroPointName(point), shape: [1], uint8: [q.zeroPoint])
        }
    }
}
