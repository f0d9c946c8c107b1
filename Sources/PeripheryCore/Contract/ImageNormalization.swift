/// The per-channel normalisation of the network input, on 0–255 pixel values.
///
/// `x = (pixel − mean) / std`. Pixels are not divided by 255 first, and the letterbox canvas is
/// filled with `mean`, so padding is exactly 0 after normalisation.
package enum ImageNormalization {
    /// Channel means (R, G, B) on the 0–255 scale.
    package static let mean: SIMD3<Float> = [123.675, 116.28, 103.53]
    /// Channel standard deviations (R, G, B) on the 0–255 scale.
    package static let std: SIMD3<Float> = [58.395, 57.12, 57.375]

    /// Normalises one RGB pixel.
    @inlinable
    static func normalize(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
        (rgb - mean) / std
    }
}
