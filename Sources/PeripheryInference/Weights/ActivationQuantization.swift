/// Per-tensor affine quantization of an activation: real value = `scale · (q − zeroPoint)` for a
/// stored byte `q`.
struct ActivationQuantization: Sendable, Hashable {
    let scale: Float
    let zeroPoint: UInt8

    /// The stored byte nearest to `value` (round half to even, clamped to 0…255).
    func quantize(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, (value / scale).rounded(.toNearestOrEven) + Float(zeroPoint))))
    }

    /// The real value of a stored byte.
    func dequantize(_ q: UInt8) -> Float { scale * (Float(q) - Float(zeroPoint)) }
}
