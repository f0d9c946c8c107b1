import CJPEG
import Foundation
import PeripheryCore
import PeripheryGeometry

/// JPEG through `periphery_jpeg_decode` (CJPEG/shim.h): libjpeg's setjmp/longjmp error handling
/// stays inside that C function, and Swift sees a return code and a message.
enum JPEGCodec {
    /// Decodes a JPEG to RGB8; `bytes` starts with the SOI marker.
    static func decode(_ bytes: UnsafeRawBufferPointer, name: String) throws(ImageError) -> RGBImage {
        guard let base = bytes.baseAddress else { throw .empty(path: name) }
        var output: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX) + 1)
        let code = message.withUnsafeMutableBufferPointer { text in
            periphery_jpeg_decode(
                base.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), UInt(RGBImage.maxSide),
                UInt(RGBImage.maxPixels), &output, &width, &height, text.baseAddress)
        }
        defer { free(output) }
        let reason = String(cMessage: message)
        switch Int(code) {
        case PERIPHERY_JPEG_OK: break
        case PERIPHERY_JPEG_TRUNCATED: throw .truncated(path: name, format: .jpeg)
        case PERIPHERY_JPEG_TOO_LARGE: throw .badDimensions(path: name, width: Int(width), height: Int(height))
        case PERIPHERY_JPEG_UNSUPPORTED: throw .unsupported(path: name, format: .jpeg, reason: reason)
        case PERIPHERY_JPEG_NO_MEMORY: throw .corrupt(path: name, format: .jpeg, reason: "out of memory")
        default: throw .corrupt(path: name, format: .jpeg, reason: reason)
        }
        let w = Int(width), h = Int(height)
        guard let output, RGBImage.acceptsSize(width: w, height: h) else {
            throw .badDimensions(path: name, width: w, height: h)
        }
        let pixels = Array(UnsafeBufferPointer(start: output, count: w * h * 3))
        guard let image = RGBImage(width: w, height: h, pixels: pixels) else {
            throw .corrupt(path: name, format: .jpeg, reason: "decoded size mismatch")
        }
        return image
    }

    /// Encodes `image` as a baseline JPEG of `quality` (1–100).
    static func encode(_ image: RGBImage, quality: Int, name: String) throws(ImageError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX) + 1)
        let code = image.pixels.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer { text in
                periphery_jpeg_encode(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 3), Int32(quality), &output, &size,
                    text.baseAddress)
            }
        }
        defer { free(output) }
        guard code == PERIPHERY_JPEG_OK, let output else {
            let reason = String(cMessage: message)
            throw .corrupt(path: name, format: .jpeg, reason: reason)
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
