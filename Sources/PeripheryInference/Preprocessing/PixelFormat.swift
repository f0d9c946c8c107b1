/// The memory layout of one frame pixel, 8 bits per sample.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable {
    /// Packed R, G, B (3 bytes per pixel), as `RGBImage` and decoded files.
    case rgb8
    /// Packed B, G, R (3 bytes per pixel), as OpenCV's images.
    case bgr8
    /// Packed B, G, R, A (4 bytes per pixel), as camera buffers (CoreVideo `32BGRA`); A is ignored.
    case bgra8

    /// Bytes per pixel.
    public var bytesPerPixel: Int {
        switch self {
        case .rgb8, .bgr8: 3
        case .bgra8: 4
        }
    }

    /// Byte offsets of red, green and blue inside one pixel.
    public var channelOffsets: (red: Int, green: Int, blue: Int) {
        switch self {
        case .rgb8: (0, 1, 2)
        case .bgr8: (2, 1, 0)
        case .bgra8: (2, 1, 0)
        }
    }
}
