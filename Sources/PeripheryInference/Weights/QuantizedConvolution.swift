/// A convolution with int8 weights, symmetric per output channel, and its float bias (batch norm
/// folded before quantizing): real weight = `weightScales[co] · weights[co, …]`.
struct QuantizedConvolution: Sendable {
    let name: String
    let inChannels: Int
    let outChannels: Int
    let kernelSize: Int
    let stride: Int
    let padding: Int
    /// `[outChannels, inChannels, k, k]` in −127…127.
    let weights: [Int8]
    /// `[outChannels]`, positive and finite.
    let weightScales: [Float]
    /// `[outChannels]`.
    let bias: [Float]

    /// Quantizes a float convolution: each output channel's scale maps its largest |weight| to 127
    /// (an all-zero channel gets scale 1 and zero weights).
    init(_ conv: Convolution) {
        let perChannel = conv.reduction
        var weights = [Int8](repeating: 0, count: conv.weights.count)
        var scales = [Float](repeating: 1, count: conv.outChannels)
        for co in 0..<conv.outChannels {
            let range = co * perChannel..<(co + 1) * perChannel
            let largest = conv.weights[range].reduce(0) { max($0, abs($1)) }
            guard largest > 0 else { continue }
            scales[co] = largest / 127
            for i in range { weights[i] = Int8(max(-127, min(127, (conv.weights[i] / scales[co]).rounded(.toNearestOrEven)))) }
        }
        self.init(
            name: conv.name, inChannels: conv.inChannels, outChannels: conv.outChannels, kernelSize: conv.kernelSize,
            stride: conv.stride, padding: conv.padding, weights: weights, weightScales: scales, bias: conv.bias)
    }

    init(
        name: String, inChannels: Int, outChannels: Int, kernelSize: Int, stride: Int, padding: Int,
        weights: [Int8], weightScales: [Float], bias: [Float]
    ) {
        self.name = name
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.kernelSize = kernelSize
        self.stride = stride
        self.padding = padding
        self.weights = weights
        self.weightScales = weightScales
        self.bias = bias
    }
}
