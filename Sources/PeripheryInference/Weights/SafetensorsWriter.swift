import Foundation
import PeripheryCore

/// Writes float32, int8 and uint8 tensors in the safetensors format (header padded to 8 bytes,
/// tensors in the given order, tiling the data buffer).
package struct SafetensorsWriter: Sendable {
    private var entries: [(name: String, dtype: SafetensorsFile.DType, shape: [Int], bytes: [UInt8])] = []
    /// `__metadata__` strings.
    package var metadata: [String: String] = [:]

    /// Creates an empty writer.
    package init() {}

    /// Adds a tensor; `values.count` must equal the product of `shape`.
    package mutating func add(_ name: String, shape: [Int], values: [Float]) {
        precondition(shape.reduce(1, *) == values.count, "tensor \(name): \(values.count) values for shape \(shape)")
        var bytes = [UInt8](repeating: 0, count: 4 * values.count)
        for (i, v) in values.enumerated() {
            let bits = v.bitPattern
            for b in 0..<4 { bytes[4 * i + b] = UInt8(truncatingIfNeeded: bits >> (8 * b)) }
        }
        entries.append((name, .f32, shape, bytes))
    }

    /// Adds an int8 tensor; `values.count` must equal the product of `shape`.
    package mutating func add(_ name: String, shape: [Int], int8 values: [Int8]) {
        precondition(shape.reduce(1, *) == values.count, "tensor \(name): \(values.count) values for shape \(shape)")
        entries.append((name, .i8, shape, values.map { UInt8(bitPattern: $0) }))
    }

    /// Adds a uint8 tensor; `values.count` must equal the product of `shape`.
    package mutating func add(_ name: String, shape: [Int], uint8 values: [UInt8]) {
        precondition(shape.reduce(1, *) == values.count, "tensor \(name): \(values.count) values for shape \(shape)")
        entries.append((name, .u8, shape, values))
    }

    /// The file's bytes.
    package func serialized() -> Data {
        var header: [String: Any] = [:]
        if !metadata.isEmpty { header["__metadata__"] = metadata }
        var offset = 0
        for entry in entries {
            let bytes = entry.bytes.count
            header[entry.name] = ["dtype": entry.dtype.rawValue, "shape": entry.shape, "data_offsets": [offset, offset + bytes]] as [String: Any]
            offset += bytes
        }
        // Strings, numbers, arrays and dictionaries only: serialization cannot fail.
        var json = (try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data("{}".utf8)
        while json.count % 8 != 0 { json.append(UInt8(ascii: " ")) }
        var data = Data()
        data.reserveCapacity(8 + json.count + offset)
        withUnsafeBytes(of: UInt64(json.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(json)
        for entry in entries { data.append(contentsOf: entry.bytes) }
        return data
    }

    /// Writes the file atomically (temporary name, then rename).
    package func write(to path: String) throws {
        try AtomicFile.write(serialized(), to: path)
    }
}
