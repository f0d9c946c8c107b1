extension RGBImage {
    /// Largest accepted width or height, in pixels: what image files, frame sources and the engine take.
    public static let maxSide = 16_384
    /// Largest accepted pixel count, `width · height` (2²⁸, 768 MiB as RGB8).
    public static let maxPixels = 1 << 28

    /// Whether `width × height` is a size the package accepts: both sides in `1 ... maxSide` and at
    /// most `maxPixels` pixels.
    public static func acceptsSize(width: Int, height: Int) -> Bool {
        (1...maxSide).contains(width) && (1...maxSide).contains(height) && width * height <= maxPixels
    }
}
