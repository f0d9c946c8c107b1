/// A picture's size in pixels, as errors report it (`640×400`).
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height)" }
}

extension RGBImage {
    /// The picture's size.
    public var size: PixelSize { PixelSize(width: width, height: height) }
}
