/// CRC-32 (IEEE 802.3, the zlib polynomial), which MCAP uses for its data, chunk and summary
/// checksums.
struct CRC32 {
    /// The running checksum.
    private(set) var value: UInt32 = 0

    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Folds `bytes` into the checksum.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        var c = ~value
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        value = ~c
    }

    /// The checksum of `bytes`.
    static func of(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
