import Foundation
import PeripheryCore
import PeripheryGeometry

/// Reads PNG and JPEG files into `RGBImage`, writes `RGBImage` as PNG and encodes it as JPEG in memory.
///
/// The format is chosen by the file's first bytes (`ImageFormat.sniff`), never by its extension.
/// Every picture comes back as packed 8-bit RGB:
/// - PNG of any bit depth and colour type: 16-bit samples are reduced to 8 bits, palette and grey
///   are expanded, alpha is dropped (the colour samples are kept as stored, not composited). 16-bit
///   files without colour information are taken as sRGB-encoded, as 8-bit ones are.
/// - JPEG, baseline or progressive, greyscale, YCbCr or RGB. CMYK/YCCK JPEGs are `unsupported`.
///
/// The declared size is checked against `RGBImage.maxSide` and `RGBImage.maxPixels` from the header, before any
/// image memory is allocated. Neither libpng nor libjpeg may longjmp through Swift frames: PNG goes
/// through libpng's simplified API (errors as return values) and JPEG through the C function
/// `periphery_jpeg_decode` in `CJPEG/shim.h`, which keeps setjmp/longjmp inside C.
public enum ImageFile {
    /// File name extensions of pictures, lower case: what a drive's frames and `detect` accept.
    package static let pictureExtensions: Set<String> = ["png", "jpg", "jpeg"]
    /// Largest accepted file, bytes, checked before it is read.
    public static let maxFileSize = 1 << 30

    /// Reads a PNG or JPEG file.
    ///
    /// - Throws: `ImageError` naming `path`: `unreadable`, `empty`, `unknownFormat`,
    ///   `badDimensions`, `truncated`, `corrupt` or `unsupported`.
    public static func read(path: String) throws(ImageError) -> RGBImage {
        switch FileBytes.read(path: path, limit: maxFileSize) {
        case .success(let data): return try decode(data, name: path)
        case .failure(let failure): throw .unreadable(path: path, cause: failure)
        }
    }

    /// Decodes PNG or JPEG bytes held in memory; `name` stands for the file in errors.
    ///
    /// - Throws: as `read(path:)`, less `unreadable`.
    public static func decode(_ data: Data, name: String) throws(ImageError) -> RGBImage {
        guard !data.isEmpty else { throw .empty(path: name) }
        guard let format = ImageFormat.sniff(data) else { throw .unknownFormat(path: name) }
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) in
                switch format {
                case .png: try PNGCodec.decode(bytes, name: name)
                case .jpeg: try JPEGCodec.decode(bytes, name: name)
                }
            }
        }
        return try result.get()
    }

    /// Encodes `image` as a baseline JPEG of `quality` (1–100, clamped), in memory.
    ///
    /// - Throws: `ImageError.corrupt` when libjpeg refuses the picture.
    public static func encodeJPEG(_ image: RGBImage, quality: Int) throws(ImageError) -> Data {
        Data(try JPEGCodec.encode(image, quality: max(1, min(100, quality)), name: "JPEG in memory"))
    }

    /// Writes `image` as an 8-bit RGB PNG, atomically (`AtomicFile`): a reader never sees a partial
    /// file, and a failed write leaves any previous file at `path` as it was.
    ///
    /// - Throws: `ImageError.invalidImage` when the picture is empty, too large or its pixel array
    ///   does not hold `width · height · 3` bytes; `ImageError.encodeFailed` when libpng fails;
    ///   `ImageError.writeFailed` when writing or renaming fails.
    public static func writePNG(_ image: RGBImage, to path: String) throws(ImageError) {
        guard RGBImage.acceptsSize(width: image.width, height: image.height) else {
            throw .invalidImage(path: path, reason: "size \(image.width) × \(image.height) is outside the limits")
        }
        guard image.pixels.count == image.width * image.height * 3 else {
            throw .invalidImage(
                path: path, reason: "\(image.pixels.count) bytes of pixels for \(image.width) × \(image.height) RGB")
        }
        let encoded = try PNGCodec.encode(image, name: path)
        do throws(OutputWriteError) {
            try AtomicFile.write(encoded, to: path)
        } catch {
            throw .writeFailed(error)
        }
    }
}
