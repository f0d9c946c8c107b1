import Foundation

/// Little-endian MCAP record encoding (`docs/guides/mcap.md#records`): an opcode, a 64-bit length, then
/// the fields; strings and byte arrays carry a 32-bit length, maps and arrays a 32-bit byte count.
struct MCAPRecordBuffer {
    /// The encoded bytes.
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func byteArray(_ data: some Collection<UInt8>) {
        u32(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    /// A field whose byte count comes first (maps, arrays), written by `body`.
    mutating func counted(_ body: (inout MCAPRecordBuffer) -> Void) {
        var inner = MCAPRecordBuffer()
        body(&inner)
        u32(UInt32(inner.bytes.count))
        bytes.append(contentsOf: inner.bytes)
    }

    /// One record: `opcode`, the length of what `body` writes, then that.
    mutating func record(_ opcode: MCAPOpcode, _ body: (inout MCAPRecordBuffer) -> Void) {
        var inner = MCAPRecordBuffer()
        body(&inner)
        u8(opcode.rawValue)
        u64(UInt64(inner.bytes.count))
        bytes.append(contentsOf: inner.bytes)
    }
}

/// The record kinds this writer emits.
enum MCAPOpcode: UInt8 {
    case header = 0x01, footer = 0x02, schema = 0x03, channel = 0x04, message = 0x05, chunk = 0x06, messageIndex = 0x07
    case chunkIndex = 0x08, statistics = 0x0B, summaryOffset = 0x0E, dataEnd = 0x0F
}
