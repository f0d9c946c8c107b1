import PeripheryCore

/// Why a picture file cannot be read or written.
///
/// Every case names the file (`path`; for in-memory data, the name the caller gave).
public enum ImageError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be opened or read.
    case unreadable(path: String, cause: FileReadError)
    /// The file holds no bytes.
    case empty(path: String)
    /// The first bytes are neither a PNG signature nor a JPEG start-of-image marker.
    case unknownFormat(path: String)
    /// The header declares a size beyond `RGBImage.maxSide` per side or `RGBImage.maxPixels` in
    /// all, or a zero side; nothing was allocated for it.
    case badDimensions(path: String, width: Int, height: Int)
    /// The data ends before the image does.
    case truncated(path: String, format: ImageFormat)
    /// The decoder rejected the data; `reason` is libpng's or libjpeg's message.
    case corrupt(path: String, format: ImageFormat, reason: String)
    /// A valid file of a kind this reader does not convert (e.g. a CMYK JPEG).
    case unsupported(path: String, format: ImageFormat, reason: String)
    /// The picture to write is empty, too large, or its pixel count disagrees with its size.
    case invalidImage(path: String, reason: String)
    /// libpng could not encode the picture; `reason` is its message.
    case encodeFailed(path: String, reason: String)
    /// Writing the temporary file or renaming it into place failed.
    case writeFailed(OutputWriteError)

    public var description: String {
        switch self {
        case .unreadable(let path, let cause): "\(path): cannot read: \(cause)"
        case .empty(let path): "\(path): file is empty"
        case .unknownFormat(let path): "\(path): not a PNG or JPEG file (unrecognised first bytes)"
        case .badDimensions(let path, let width, let height):
            "\(path): image size \(width) × \(height) is outside 1 ... \(RGBImage.maxSide) per side"
                + " and \(RGBImage.maxPixels) pixels"
        case .truncated(let path, let format): "\(path): \(format) data is truncated"
        case .corrupt(let path, let format, let reason): "\(path): corrupt \(format) data: \(reason)"
        case .unsupported(let path, let format, let reason): "\(path): unsupported \(format): \(reason)"
        case .invalidImage(let path, let reason): "\(path): cannot write: \(reason)"
        case .encodeFailed(let path, let reason): "\(path): cannot encode PNG: \(reason)"
        case .writeFailed(let error): error.description
        }
    }
}
