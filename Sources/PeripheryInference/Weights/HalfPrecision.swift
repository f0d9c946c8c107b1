/// IEEE 754 binary16 → binary32, written out so that it behaves the same on every platform.
enum HalfPrecision {
    /// Converts the bits of a half-precision number, including subnormals, infinities and NaN.
    static func float(fromHalf h: UInt16) -> Float {
        let sign = UInt32(h & 0x8000) << 16
        let exponent = UInt32(h >> 10) & 0x1F
        let mantissa = UInt32(h) & 0x3FF
        switch exponent {
        case 0:
            // Subnormal (or zero): mantissa · 2⁻²⁴, exact in Float.
            let magnitude = Float(mantissa) * 0x1p-24
            return sign != 0 ? -magnitude : magnitude
        case 0x1F:
            return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13)
        default:
            return Float(bitPattern: sign | (exponent + 112) << 23 | mantissa << 13)
        }
    }
}
