import PeripheryCore

/// Why a frame's pixel description is unusable; each case names the `FramePixels` field at fault.
public enum PreprocessError: Error, Equatable, CustomStringConvertible {
    /// `width` or `height` is not in `1 ... RGBImage.maxSide`, or the frame exceeds
    /// `RGBImage.maxPixels`.
    case invalidSize(field: String, value: Int)
    /// `rowStride` is shorter than one row of pixels, `width · bytesPerPixel`.
    case rowStrideTooSmall(rowStride: Int, needed: Int)
    /// `bytes` is shorter than `(height − 1) · rowStride + width · bytesPerPixel`.
    case bufferTooSmall(count: Int, needed: Int)

    public var description: String {
        switch self {
        case .invalidSize(let field, let value):
            "frame \(field) \(value) is outside 1 ... \(RGBImage.maxSide) (at most \(RGBImage.maxPixels) pixels)"
        case .rowStrideTooSmall(let rowStride, let needed): "frame rowStride \(rowStride) is below one row, \(needed) bytes"
        case .bufferTooSmall(let count, let needed): "frame bytes hold \(count) bytes, the size and rowStride need \(needed)"
        }
    }
}
