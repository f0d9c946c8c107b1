import Foundation
import Periphery

/// Harness: bytes as a picture (PNG or JPEG, chosen by the first bytes as for files).
func fuzzImage(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let image = try? ImageFile.decode(Data(bytes: bytes, count: count), name: "fuzz") else { return 0 }
    // A decoded picture must be exactly what it claims to be.
    precondition(image.pixels.count == image.width * image.height * 3, "decoded \(image.pixels.count) bytes for \(image.width)×\(image.height)")
    return 0
}
