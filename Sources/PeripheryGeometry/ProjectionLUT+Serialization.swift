import PeripheryCore

extension ProjectionLUT {
    /// Bytes of a serialized Safety40 LUT: 6560 int32 then 6560 uint8.
    static let serializedByteCount = Safety40.voxelCount * 5

    /// The conformance layout: `count` little-endian int32 indices, then `count` uint8 flags.
    public var serialized: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 5)
        for index in indices {
            withUnsafeBytes(of: index.littleEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.append(contentsOf: visibility)
        return bytes
    }

    /// Reads the conformance layout for the 6560 Safety40 voxels.
    ///
    /// - Throws: `ProjectionLUTError` if the length is not 32,800 bytes or the content is invalid.
    public init<Bytes: Collection<UInt8>>(serialized bytes: Bytes) throws(ProjectionLUTError) {
        let n = Safety40.voxelCount
        let data = Array(bytes)
        guard data.count == ProjectionLUT.serializedByteCount else {
            throw .wrongByteCount(expected: ProjectionLUT.serializedByteCount, actual: data.count)
        }
        var indices = [Int32](repeating: 0, count: n)
        for i in 0..<n {
            let b = 4 * i
            let raw = UInt32(data[b]) | UInt32(data[b + 1]) << 8 | UInt32(data[b + 2]) << 16 | UInt32(data[b + 3]) << 24
            indices[i] = Int32(bitPattern: raw)
        }
        try self.init(indices: indices, visibility: Array(data[(4 * n)...]))
    }
}
