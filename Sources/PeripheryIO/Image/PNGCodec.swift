import CLibPNG
import Foundation
import PeripheryCore
import PeripheryGeometry

/// PNG through libpng's simplified API (`png_image_*`), which reports errors as return values and
/// a message in the `png_image`, so no libpng longjmp ever crosses a Swift frame.
enum PNGCodec {
    /// `PNG_FORMAT_RGB` (8-bit sRGB, R G B); the header's macro is an expression Swift does not import.
    private static let rgbFormat = png_uint_32(PNG_FORMAT_FLAG_COLOR)
    /// `PNG_FORMAT_RGBA` (8-bit sRGB, R G B A, not premultiplied).
    private static let rgbaFormat = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    /// Decodes a PNG to RGB8; `bytes` starts with the PNG signature.
    static func decode(_ bytes: UnsafeRawBufferPointer, name: String) throws(ImageError) -> RGBImage {
        // The size is read from IHDR here, before libpng allocates anything for the image.
        guard bytes.count >= 24 else { throw .truncated(path: name, format: .png) }
        guard bigEndian(bytes, at: 12) == chunkType("IHDR") else {
            throw .corrupt(path: name, format: .png, reason: "first chunk is not IHDR")
        }
        let width = Int(bigEndian(bytes, at: 16)), height = Int(bigEndian(bytes, at: 20))
        guard RGBImage.acceptsSize(width: width, height: height) else {
            throw .badDimensions(path: name, width: width, height: height)
        }
        // Deflate expands at most 1032-fold, and every row holds a filter byte and at least one bit
        // per pixel: a file too short for its declared size is refused here, before the pixel
        // buffer (up to 768 MiB) is allocated for data that is not there.
        let leastRawBytes = height * (1 + (width + 7) / 8)
        guard bytes.count * 1032 >= leastRawBytes else { throw .truncated(path: name, format: .png) }
        guard let base = bytes.baseAddress else { throw .empty(path: name) }

        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_memory(&image, base, bytes.count) != 0 else {
            throw failure(message(of: &image), bytes, name: name)
        }
        // libpng agrees with IHDR; checked again so that the buffer below is sized from what it read.
        guard Int(image.width) == width, Int(image.height) == height else {
            png_image_free(&image)
            throw .corrupt(path: name, format: .png, reason: "size changed while reading the header")
        }
        let hasAlpha = image.format & png_uint_32(PNG_FORMAT_FLAG_ALPHA) != 0
        let channels = hasAlpha ? 4 : 3
        image.format = hasAlpha ? rgbaFormat : rgbFormat
        // Without gAMA/sRGB, take 16-bit samples as sRGB (as 8-bit ones are) rather than linear.
        image.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB)
        var decoded = [UInt8](repeating: 0, count: width * height * channels)
        let ok = decoded.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, nil, buffer.baseAddress, png_int_32(width * channels), nil)
        }
        guard ok != 0 else { throw failure(message(of: &image), bytes, name: name) }
        if hasAlpha {
            // Drop alpha in place: pixel i moves from 4i to 3i, never past a pixel still to be read.
            let pixels = width * height
            decoded.withUnsafeMutableBufferPointer { p in
                for i in 0..<pixels {
                    p[3 * i] = p[4 * i]
                    p[3 * i + 1] = p[4 * i + 1]
                    p[3 * i + 2] = p[4 * i + 2]
                }
            }
            decoded.removeLast(pixels)
        }
        guard let result = RGBImage(width: width, height: height, pixels: decoded) else {
            throw .corrupt(path: name, format: .png, reason: "decoded size mismatch")
        }
        return result
    }

    /// `image` (already checked by the caller) encoded as an 8-bit RGB PNG; `name` is the file it is for.
    static func encode(_ image: RGBImage, name: String) throws(ImageError) -> Data {
        var png = png_image()
        png.version = png_uint_32(PNG_IMAGE_VERSION)
        png.width = png_uint_32(image.width)
        png.height = png_uint_32(image.height)
        png.format = rgbFormat
        // The first call measures, the second writes.
        var size = 0
        let measured = image.pixels.withUnsafeBytes { pixels in
            png_image_write_to_memory(&png, nil, &size, 0, pixels.baseAddress, png_int_32(image.width * 3), nil)
        }
        guard measured != 0 else { throw .encodeFailed(path: name, reason: message(of: &png)) }
        var data = Data(count: size)
        let ok = data.withUnsafeMutableBytes { memory in
            image.pixels.withUnsafeBytes { pixels in
                png_image_write_to_memory(&png, memory.baseAddress, &size, 0, pixels.baseAddress, png_int_32(image.width * 3), nil)
            }
        }
        guard ok != 0 else { throw .encodeFailed(path: name, reason: message(of: &png)) }
        data.count = size
        return data
    }

    /// Turns a libpng failure into `truncated` when the chunk structure ends before IEND, else
    /// `corrupt` with libpng's message.
    private static func failure(_ message: String, _ bytes: UnsafeRawBufferPointer, name: String) -> ImageError {
        isTruncated(bytes) ? .truncated(path: name, format: .png) : .corrupt(path: name, format: .png, reason: message)
    }

    /// Whether walking the chunks (length, type, data, CRC) from after the signature runs out of
    /// bytes before an IEND chunk.
    static func isTruncated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bigEndian(bytes, at: offset))
            let end = offset + 12 + length
            if end > bytes.count { return true }
            if bigEndian(bytes, at: offset + 4) == chunkType("IEND") { return false }
            offset = end
        }
        return true
    }

    /// The `png_image` message (NUL-terminated inside its 64 bytes).
    private static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let text = raw.prefix { $0 != 0 }
            return text.isEmpty ? "libpng failed without a message" : String(decoding: text, as: UTF8.self)
        }
    }

    /// The big-endian 32-bit word at `offset` (the caller checks the bounds).
    private static func bigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    /// A four-letter chunk type as the big-endian word it is stored as.
    private static func chunkType(_ name: StaticString) -> UInt32 {
        UnsafeRawBufferPointer(start: name.utf8Start, count: 4).reduce(0) { $0 << 8 | UInt32($1) }
    }
}
