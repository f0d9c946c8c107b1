import Foundation
import Periphery

/// Harness: bytes as a weights file — header, tensor table, then every tensor's
/// values and the Safety40 name-and-shape checks, as `Safety40Weights(path:)` runs them.
func fuzzSafetensors(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let file = try? SafetensorsFile(data: data) else { return 0 }
    for name in file.tensors.keys { _ = try? file.floats(name) }
    _ = try? Safety40Weights(file: file)
    return 0
}
