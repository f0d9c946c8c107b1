/// An 8-bit RGB picture: `width × height` pixels, packed R, G, B, rows top to bottom.
public struct RGBImage: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `height · width · 3` bytes, row-major, no row padding.
    public var pixels: [UInt8]

    /// Creates a picture filled with one colour.
    public init(width: Int, height: Int, fill: SIMD3<UInt8> = [0, 0, 0]) {
        precondition(width >= 0 && height >= 0, "negative image size")
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        if fill != [0, 0, 0] {
            for i in stride(from: 0, to: pixels.count, by: 3) {
                pixels[i] = fill.x
                pixels[i + 1] = fill.y
                pixels[i + 2] = fill.z
            }
        }
        self.pixels = pixels
    }

    /// Wraps packed RGB bytes; `nil` unless `pixels.count == width · height · 3`.
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width >= 0, height >= 0, pixels.count == width * height * 3 else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The pixel at column `x`, row `y` (0-based; must be inside the picture).
    public subscript(x: Int, y: Int) -> SIMD3<UInt8> {
        get {
            let i = (y * width + x) * 3
            return SIMD3(pixels[i], pixels[i + 1], pixels[i + 2])
        }
        set {
            let i = (y * width + x) * 3
            pixels[i] = newValue.x
            pixels[i + 1] = newValue.y
            pixels[i + 2] = newValue.z
        }
    }
}
