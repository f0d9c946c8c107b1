import Foundation

/// The Safety40 network's weights, validated against the architecture and with every batch norm
/// folded into its convolution.
///
/// Loading is strict: a missing tensor, an unexpected one (other than BN `num_batches_tracked`)
/// or a wrong shape is an error that names it. Both unfolded checkpoints (convolution + BN
/// tensors) and BN-folded ones (convolution with bias, no BN) are accepted, per layer.
public struct Safety40Weights: Sendable {
    /// The file's `__metadata__`.
    public let metadata: [String: String]
    /// Trainable parameters in the file's layout (15,206,520 unfolded).
    public let parameterCount: Int
    /// Convolutions by checkpoint name, BN folded, in float32 (empty in an INT8 file).
    let convolutions: [String: Convolution]
    /// The INT8 network of a file written by `periphery quantize`, `nil` in an FP32 file.
    let int8: Safety40Int8Weights?

    /// The precision the file's weights are stored in.
    public var precision: InferencePrecision { int8 == nil ? .fp32 : .int8 }

    /// Batch-norm epsilon of the network.
    static let batchNormEpsilon = 1e-5

    /// Loads and validates a weights file.
    ///
    /// - Throws: `SafetensorsError.inFile` naming the path and the tensor at fault.
    public init(path: String) throws(SafetensorsError) {
        let file = try SafetensorsFile(path: path)
        do {
            try self.init(file: file)
        } catch let error {
            throw .inFile(path: path, error)
        }
    }

    /// Validates weights from an open safetensors file.
    public init(file: SafetensorsFile) throws(SafetensorsError) {
        metadata = file.metadata
        if file.metadata["precision"] == Safety40Int8Weights.precision {
            int8 = try Safety40Int8Weights(file: file)
            convolutions = [:]
            parameterCount = Safety40Architecture.parameterCount
            return
        }
        int8 = nil
        var remaining = Set(file.tensors.keys)
        var convolutions: [String: Convolution] = [:]
        var parameters = 0
        func take(_ name: String, shape: [Int]) throws(SafetensorsError) -> [Float] {
            guard let info = file.tensors[name] else { throw .missingTensor(name) }
            guard info.shape == shape else { throw .wrongShape(tensor: name, expected: "\(shape)", actual: info.shape) }
            remaining.remove(name)
            parameters += info.elementCount
            return try file.floats(name)
        }
        for spec in Safety40Architecture.convolutions {
            let k = spec.kernelSize, cout = spec.outChannels
            var weights = try take(spec.conv + ".weight", shape: [cout, spec.inChannels, k, k])
            let folded = spec.batchNorm.map { bn in !file.tensors.keys.contains { $0.hasPrefix(bn + ".") } } ?? true
            var bias =
                folded || spec.hasBias
                ? try take(spec.conv + ".bias", shape: [cout])
                : [Float](repeating: 0, count: cout)
            if let bn = spec.batchNorm, !folded {
                let gamma = try take(bn + ".weight", shape: [cout]), beta = try take(bn + ".bias", shape: [cout])
                let mean = try take(bn + ".running_mean", shape: [cout]), variance = try take(bn + ".running_var", shape: [cout])
                parameters -= 2 * cout // running statistics are buffers, not parameters
                remaining.remove(bn + ".num_batches_tracked")
                Safety40Weights.foldBatchNorm(
                    weights: &weights, bias: &bias, gamma: gamma, beta: beta, mean: mean, variance: variance)
            }
            convolutions[spec.conv] = Convolution(
                name: spec.conv, inChannels: spec.inChannels, outChannels: cout, kernelSize: k, stride: spec.stride,
                padding: spec.padding, weights: weights, bias: bias)
        }
        if let extra = remaining.sorted().first { throw .unexpectedTensor(extra) }
        parameterCount = parameters
        self.convolutions = convolutions
    }

    /// Folds inference-mode batch norm into the convolution before it, in Double:
    /// `scale = γ / √(var + ε)`, `w' = w · scale`, `b' = (b − mean) · scale + β`.
    static func foldBatchNorm(
        weights: inout [Float], bias: inout [Float], gamma: [Float], beta: [Float], mean: [Float], variance: [Float]
    ) {
        let perChannel = weights.count / gamma.count
        for c in gamma.indices {
            let scale = Double(gamma[c]) / (Double(variance[c]) + batchNormEpsilon).squareRoot()
            for i in (c * perChannel)..<((c + 1) * perChannel) { weights[i] = Float(Double(weights[i]) * scale) }
            bias[c] = Float((Double(bias[c]) - Double(mean[c])) * scale + Double(beta[c]))
        }
    }

    /// The folded convolution named `name` (an architecture name, so always present).
    func convolution(_ name: String) -> Convolution {
        guard let conv = convolutions[name] else { preconditionFailure("no convolution \(name) in Safety40Architecture") }
        return conv
    }
}
