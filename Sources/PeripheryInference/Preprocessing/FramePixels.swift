import PeripheryCore
import PeripheryGeometry

/// One camera frame's pixels: 8-bit RGB or BGRA rows, top to bottom, `rowStride` bytes apart.
///
/// Owns its bytes (an array), so a frame can be kept or sent across threads. Rows may be padded
/// (`rowStride > width · bytesPerPixel`, as camera buffers are); padding bytes are never read, nor
/// is anything past the last pixel of the last row.
public struct FramePixels: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Width and height.
    public var size: PixelSize { PixelSize(width: width, height: height) }
    /// Bytes from the start of one row to the start of the next.
    public let rowStride: Int
    /// Layout of each pixel.
    public let format: PixelFormat
    /// The pixel rows; at least `(height − 1) · rowStride + width · bytesPerPixel` bytes.
    public let bytes: [UInt8]

    /// Wraps frame bytes after checking that they hold the described picture.
    ///
    /// - Throws: `PreprocessError` naming `width`, `height`, `rowStride` or `bytes`.
    public init(width: Int, height: Int, rowStride: Int, format: PixelFormat, bytes: [UInt8]) throws(PreprocessError) {
        guard (1...RGBImage.maxSide).contains(width) else { throw .invalidSize(field: "width", value: width) }
        guard (1...RGBImage.maxSide).contains(height) else { throw .invalidSize(field: "height", value: height) }
        guard width * height <= RGBImage.maxPixels else { throw .invalidSize(field: "width × height", value: width * height) }
        let row = width * format.bytesPerPixel
        guard rowStride >= row else { throw .rowStrideTooSmall(rowStride: rowStride, needed: row) }
        let needed = (height - 1) * rowStride + row
        guard bytes.count >= needed else { throw .bufferTooSmall(count: bytes.count, needed: needed) }
        self.width = width
        self.height = height
        self.rowStride = rowStride
        self.format = format
        self.bytes = bytes
    }

    /// Packed RGB8 rows of `image` (no copy of the array storage until one side changes).
    ///
    /// - Throws: `PreprocessError.invalidSize` when the picture is empty or beyond the size limits.
    public init(_ image: RGBImage) throws(PreprocessError) {
        try self.init(width: image.width, height: image.height, rowStride: image.width * 3, format: .rgb8, bytes: image.pixels)
    }
}
