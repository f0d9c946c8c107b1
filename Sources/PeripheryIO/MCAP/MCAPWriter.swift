import Foundation
import PeripheryCore

/// Writes an MCAP file (`docs/guides/mcap.md`): schemas and channels up front, messages in uncompressed
/// chunks each followed by its message indexes, then the summary (schemas, channels, statistics,
/// chunk indexes), the summary offsets and the footer, so that readers can seek and check CRCs.
///
/// The file is `path.partial` until `finish()`; a run that fails still calls `finish()`, so what
/// was recorded before the failure is a complete, valid file.
package struct MCAPWriter {
    /// A registered schema's id.
    package typealias SchemaID = UInt16
    /// A registered channel's id.
    package typealias ChannelID = UInt16

    private struct Schema { var id: SchemaID, name: String, encoding: String, data: Data }
    private struct Channel { var id: ChannelID, schema: SchemaID, topic: String, encoding: String, metadata: [(String, String)] }
    private struct ChunkIndex {
        var start: UInt64, end: UInt64, offset: UInt64, length: UInt64
        var messageIndexOffsets: [(ChannelID, UInt64)], messageIndexLength: UInt64, size: UInt64
    }

    /// Messages gathered for the chunk being built, and their (log time, offset) per channel.
    private struct OpenChunk {
        var records = MCAPRecordBuffer()
        var index: [ChannelID: [(UInt64, UInt64)]] = [:]
        var start = UInt64.max, end = UInt64.min
    }

    private static let magic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]
    /// Chunks close once they hold this many bytes of records.
    private let chunkSize: Int

    private let file: AtomicFile
    private var offset: UInt64 = 0
    private var dataCRC = CRC32()
    private var schemas: [Schema] = []
    private var channels: [Channel] = []
    private var chunk = OpenChunk()
    private var chunkIndexes: [ChunkIndex] = []
    private var messageCounts: [ChannelID: UInt64] = [:]
    private var finished = false

    /// Starts the file with the magic and a header naming `profile` and `library`.
    ///
    /// - Throws: `OutputWriteError`.
    package init(path: String, profile: String = "", library: String, chunkSize: Int = 1 << 20) throws(OutputWriteError) {
        self.chunkSize = chunkSize
        file = try AtomicFile(path: path, temporary: path + ".partial")
        var header = MCAPRecordBuffer()
        header.bytes = Self.magic
        header.record(.header) {
            $0.string(profile)
            $0.string(library)
        }
        try emit(header.bytes)
    }

    /// Registers a schema (its record goes into the data section now and into the summary).
    package mutating func addSchema(name: String, encoding: String, data: Data) throws(OutputWriteError) -> SchemaID {
        let schema = Schema(id: SchemaID(schemas.count + 1), name: name, encoding: encoding, data: data)
        schemas.append(schema)
        var buffer = MCAPRecordBuffer()
        Self.write(schema, into: &buffer)
        try emit(buffer.bytes)
        return schema.id
    }

    /// Registers a channel on `topic` whose messages follow `schema` in `encoding`.
    package mutating func addChannel(
        topic: String, schema: SchemaID, messageEncoding: String, metadata: [(String, String)] = []
    ) throws(OutputWriteError) -> ChannelID {
        let channel = Channel(id: ChannelID(channels.count), schema: schema, topic: topic, encoding: messageEncoding, metadata: metadata)
        channels.append(channel)
        var buffer = MCAPRecordBuffer()
        Self.write(channel, into: &buffer)
        try emit(buffer.bytes)
        return channel.id
    }

    /// Adds one message on `channel` at `logTime` (nanoseconds), published at the same time.
    package mutating func write(channel: ChannelID, logTime: UInt64, data: some Collection<UInt8>) throws(OutputWriteError) {
        precondition(Int(channel) < channels.count, "unregistered MCAP channel \(channel)")
        // A channel's sequence numbers count its messages from 0.
        let number = UInt32(truncatingIfNeeded: messageCounts[channel, default: 0])
        messageCounts[channel, default: 0] += 1
        chunk.index[channel, default: []].append((logTime, UInt64(chunk.records.bytes.count)))
        chunk.start = min(chunk.start, logTime)
        chunk.end = max(chunk.end, logTime)
        chunk.records.record(.message) {
            $0.u16(channel)
            $0.u32(number)
            $0.u64(logTime)
            $0.u64(logTime)
            $0.bytes.append(contentsOf: data)
        }
        if chunk.records.bytes.count >= chunkSize { try closeChunk() }
    }

    /// Closes the last chunk, writes the summary and footer and gives the file its name.
    package mutating func finish() throws(OutputWriteError) {
        guard !finished else { return }
        finished = true
        try closeChunk()
        var end = MCAPRecordBuffer()
        end.record(.dataEnd) { $0.u32(dataCRC.value) }
        try emit(end.bytes)

        let summaryStart = offset
        var summary = MCAPRecordBuffer()
        var groups: [(MCAPOpcode, UInt64, UInt64)] = []
        func group(_ opcode: MCAPOpcode, _ body: (inout MCAPRecordBuffer) -> Void) {
            let start = summary.bytes.count
            body(&summary)
            if summary.bytes.count > start {
                groups.append((opcode, summaryStart + UInt64(start), UInt64(summary.bytes.count - start)))
            }
        }
        group(.schema) { buffer in for schema in schemas { Self.write(schema, into: &buffer) } }
        group(.channel) { buffer in for channel in channels { Self.write(channel, into: &buffer) } }
        group(.statistics) { buffer in writeStatistics(into: &buffer) }
        group(.chunkIndex) { buffer in for index in chunkIndexes { Self.write(index, into: &buffer) } }
        let summaryOffsetStart = summaryStart + UInt64(summary.bytes.count)
        for (opcode, start, length) in groups {
            summary.record(.summaryOffset) {
                $0.u8(opcode.rawValue)
                $0.u64(start)
                $0.u64(length)
            }
        }
        // The footer's CRC covers the summary and the footer up to its own field.
        summary.u8(MCAPOpcode.footer.rawValue)
        summary.u64(20)
        summary.u64(summaryStart)
        summary.u64(summaryOffsetStart)
        summary.u32(CRC32.of(summary.bytes))
        summary.bytes.append(contentsOf: Self.magic)
        try file.append(Data(summary.bytes))
        try file.commit()
    }

    private func writeStatistics(into buffer: inout MCAPRecordBuffer) {
        let total = messageCounts.values.reduce(0, +)
        let counts = messageCounts.sorted { $0.key < $1.key }
        // Every message is in a chunk by now, so the chunks' times span the messages'.
        let start = chunkIndexes.map(\.start).min() ?? 0, end = chunkIndexes.map(\.end).max() ?? 0
        let (schemaCount, channelCount, chunkCount) = (schemas.count, channels.count, chunkIndexes.count)
        buffer.record(.statistics) {
            $0.u64(total)
            $0.u16(UInt16(schemaCount))
            $0.u32(UInt32(channelCount))
            $0.u32(0)
            $0.u32(0)
            $0.u32(UInt32(chunkCount))
            $0.u64(start)
            $0.u64(end)
            $0.counted { map in
                for (channel, count) in counts {
                    map.u16(channel)
                    map.u64(count)
                }
            }
        }
    }

    /// Writes the open chunk and its message indexes, and remembers its index.
    private mutating func closeChunk() throws(OutputWriteError) {
        guard !chunk.records.bytes.isEmpty else { return }
        let records = chunk.records.bytes
        var buffer = MCAPRecordBuffer()
        let (start, end) = (chunk.start, chunk.end)
        buffer.record(.chunk) {
            $0.u64(start)
            $0.u64(end)
            $0.u64(UInt64(records.count))
            $0.u32(CRC32.of(records))
            $0.string("")
            $0.u64(UInt64(records.count))
            $0.bytes.append(contentsOf: records)
        }
        let chunkOffset = offset, chunkLength = UInt64(buffer.bytes.count)
        var indexOffsets: [(ChannelID, UInt64)] = []
        for (channel, entries) in chunk.index.sorted(by: { $0.key < $1.key }) {
            indexOffsets.append((channel, chunkOffset + UInt64(buffer.bytes.count)))
            buffer.record(.messageIndex) {
                $0.u16(channel)
                $0.counted { array in
                    for (time, position) in entries {
                        array.u64(time)
                        array.u64(position)
                    }
                }
            }
        }
        chunkIndexes.append(
            ChunkIndex(
                start: start, end: end, offset: chunkOffset, length: chunkLength, messageIndexOffsets: indexOffsets,
                messageIndexLength: UInt64(buffer.bytes.count) - chunkLength, size: UInt64(records.count)))
        chunk = OpenChunk()
        try emit(buffer.bytes)
    }

    /// Appends data-section bytes, keeping the offset and the data CRC.
    private mutating func emit(_ bytes: [UInt8]) throws(OutputWriteError) {
        try file.append(Data(bytes))
        dataCRC.update(bytes)
        offset += UInt64(bytes.count)
    }

    private static func write(_ schema: Schema, into buffer: inout MCAPRecordBuffer) {
        buffer.record(.schema) {
            $0.u16(schema.id)
            $0.string(schema.name)
            $0.string(schema.encoding)
            $0.byteArray(schema.data)
        }
    }

    private static func write(_ channel: Channel, into buffer: inout MCAPRecordBuffer) {
        buffer.record(.channel) {
            $0.u16(channel.id)
            $0.u16(channel.schema)
            $0.string(channel.topic)
            $0.string(channel.encoding)
            $0.counted { map in
                for (key, value) in channel.metadata {
                    map.string(key)
                    map.string(value)
                }
            }
        }
    }

    private static func write(_ index: ChunkIndex, into buffer: inout MCAPRecordBuffer) {
        buffer.record(.chunkIndex) {
            $0.u64(index.start)
            $0.u64(index.end)
            $0.u64(index.offset)
            $0.u64(index.length)
            $0.counted { map in
                for (channel, offset) in index.messageIndexOffsets {
                    map.u16(channel)
                    map.u64(offset)
                }
            }
            $0.u64(index.messageIndexLength)
            $0.string("")
            $0.u64(index.size)
            $0.u64(index.size)
        }
    }
}
