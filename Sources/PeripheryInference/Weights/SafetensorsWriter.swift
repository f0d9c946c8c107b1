import Foundation

/// Writes float32 tensors in the safetensors format (header padded to 8 bytes, tensors in the
/// given order, tiling the data buffer).
public struct SafetensorsWriter: Sendable {
    private var entries: [(name: String, shape: [Int], values: [Float])] = []
    /// `__metadata__` strings.
    public var metadata: [String: String] = [:]

    /// Creates an empty writer.
    public init() {}

    /// Adds a tensor; `values.count` must equal the product of `shape`.
    public mutating func add(_ name: String, shape: [Int], values: [Float]) {
        precondition(shape.reduce(1, *) == values.count, "tensor \(name): \(values.count) values for shape \(shape)")
        entries.append((name, shape, values))
    }

    /// The file's bytes.
    public func serialized() -> Data {
        var header: [String: Any] = [:]
        if !metadata.isEmpty { header["__metadata__"] = metadata }
        var offset = 0
        for entry in entries {
            let bytes = 4 * entry.values.count
            header[entry.name] = ["dtype": "F32", "shape": entry.shape, "data_offsets": [offset, offset + bytes]] as [String: Any]
            offset += bytes
        }
        // Strings, numbers, arrays and dictionaries only: serialization cannot fail.
        var json = (try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data("{}".utf8)
        while json.count % 8 != 0 { json.append(UInt8(ascii: " ")) }
        var data = Data()
        data.reserveCapacity(8 + json.count + offset)
        withUnsafeBytes(of: UInt64(json.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(json)
        for entry in entries {
            entry.values.withUnsafeBufferPointer { values in
                for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
            }
        }
        return data
    }

    /// Writes the file atomically (temporary name, then rename).
    public func write(to path: String) throws {
        try AtomicFile.write(serialized(), to: path)
    }
}
