/// A convolution with int8 weights, symmetric per output channel, and its float bias (batch norm
/// folded before quantizing): real weight = `weightScales[co] · weights[co, …]`.
struct QuantizedConvolution: Sendable {
    let name: String
    let inChannels: Int
    let outChannels: Int
    let kernelSize: Int
    let stride: Int
    let padding: Int
    /// `[outChannels, inChannels, k, k]` in −127…127 (−31…31 from `periphery quantize`, 6-bit).
    let weights: [Int8]
    /// `[outChannels]`, positive and finite.
    let weightScales: [Float]
    /// `[outChannels]`.
    let bias: [Float]

    /// Quantizes a float convolution to `bits`-bit weights: each output channel's scale maps its
    /// largest |weight| to 2^(bits−1) − 1 (31 for the default 6 bits, which AVX2's fastest kernel
    /// needs; 63 for 7, 127 for 8) (an all-zero channel gets scale 1 and zero weights).
    init(_ conv: Convolution, bits: WeightBits = .six) {
        let top = Float(bits.largest)
        let perChannel = conv.reduction
        var weights = [Int8](repeating: 0, count: conv.weights.count)
        var scales = [Float](repeating: 1, count: conv.outChannels)
        for co in 0..<conv.outChannels {
            let range = co * perChannel..<(co + 1) * perChannel
            let largest = conv.weights[range].reduce(0) { max($0, abs($1)) }
            guard largest > 0 else { continue }
            scales[co] = largest / top
            for i in range { weights[i] = Int8(max(-top, min(top, (conv.weights[i] / scales[co]).rounded(.toNearestOrEven)))) }
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

/// The width of the symmetric int8 weights `periphery quantize` writes (docs/guides/weights.md).
package enum WeightBits: Int, Sendable, CaseIterable {
    /// −31…31 (the default): AVX2 adds two vpmaddubsw products in s16 before each vpmaddwd, its
    /// fastest kernel.
    case six = 6
    /// −63…63: AVX2 runs one vpmaddwd per vpmaddubsw.
    case seven = 7
    /// −127…127: finer weights, but AVX2 then runs the half-rate vpmaddwd kernel.
    case eight = 8

    /// The largest |weight|.
    var largest: Int { (1 << (rawValue - 1)) - 1 }
}
