import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryTestSupport
import Testing

@testable import PeripheryIO

/// The MCAP writer against the format's rules (`docs/guides/mcap.md`), read back by a reader written
/// here from the specification; `make test-tools` also reads the files with the `mcap` package.
struct MCAPWriterTests {
    /// CRC-32 bit by bit, the specification's definition, to hold the table-driven one to.
    static func bitwiseCRC(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func crc32() {
        #expect(CRC32.of(Array("123456789".utf8)) == 0xCBF4_3926)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4099).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var split = CRC32()
        split.update(bytes[..<1000])
        split.update(bytes[1000...])
        #expect(split.value == Self.bitwiseCRC(bytes) && CRC32.of(bytes) == split.value)
    }

    /// A little-endian cursor over a file's bytes.
    struct Cursor {
        let bytes: [UInt8]
        var at: Int
        mutating func int(_ size: Int) -> UInt64 {
            defer { at += size }
            return (0..<size).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) }
        }
        mutating func string() -> String {
            let n = Int(int(4))
            defer { at += n }
            return String(decoding: bytes[at..<at + n], as: UTF8.self)
        }
    }

    /// Every record of `bytes[range]`: (opcode, start of its fields, end).
    static func records(_ bytes: [UInt8], _ range: Range<Int>) -> [(op: UInt8, body: Int, end: Int)] {
        var cursor = Cursor(bytes: bytes, at: range.lowerBound), out: [(UInt8, Int, Int)] = []
        while cursor.at < range.upperBound {
            let op = UInt8(cursor.int(1)), length = Int(cursor.int(8))
            out.append((op, cursor.at, cursor.at + length))
            cursor.at += length
        }
        return out
    }

    @Test func fileFollowsTheSpecification() throws {
        let folder = try scratchFolder("mcap")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/run.mcap"
        var writer = try MCAPWriter(path: path, library: "test", chunkSize: 700)
        let schema = try writer.addSchema(name: "test.Thing", encoding: "jsonschema", data: Data("{}".utf8))
        let channels = [
            try writer.addChannel(topic: "/a", schema: schema, messageEncoding: "json"),
            try writer.addChannel(topic: "/b", schema: schema, messageEncoding: "json", metadata: [("k", "v")]),
        ]
        for i in 0..<50 {
            try writer.write(channel: channels[i % 2], logTime: UInt64(1_000 + i * 10), data: Array("{\"i\":\(i)}".utf8))
        }
        try writer.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let magic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]
        #expect(Array(bytes.prefix(8)) == magic && Array(bytes.suffix(8)) == magic)

        // Footer: the last record before the closing magic.
        let footerStart = bytes.count - 8 - 29
        var footer = Cursor(bytes: bytes, at: footerStart)
        #expect(footer.int(1) == 0x02 && footer.int(8) == 20)
        let summaryStart = Int(footer.int(8)), offsetStart = Int(footer.int(8)), summaryCRC = UInt32(footer.int(4))
        #expect(summaryCRC == Self.bitwiseCRC(bytes[summaryStart..<footerStart + 25]))

        // Data section: header, schema, channels, then chunks each followed by message indexes, then data end.
        let data = Self.records(bytes, 8..<summaryStart)
        #expect(data.first?.op == 0x01 && data.last?.op == 0x0F)
        if let end = data.last {
            var cursor = Cursor(bytes: bytes, at: end.body)
            #expect(UInt32(cursor.int(4)) == Self.bitwiseCRC(bytes[0..<end.body - 9]))
        }
        let chunks = data.enumerated().filter { $0.element.op == 0x06 }
        #expect(chunks.count >= 3)
        var seen: [Int] = []
        for (position, chunk) in chunks {
            var c = Cursor(bytes: bytes, at: chunk.body)
            let (start, end, size, crc) = (c.int(8), c.int(8), Int(c.int(8)), UInt32(c.int(4)))
            #expect(c.string() == "" && Int(c.int(8)) == size)
            let records = c.at..<c.at + size
            #expect(crc == Self.bitwiseCRC(bytes[records]))
            let messages = Self.records(bytes, records)
            var times: [UInt64] = []
            for message in messages {
                var m = Cursor(bytes: bytes, at: message.body)
                #expect(message.op == 0x05)
                _ = (m.int(2), m.int(4))
                let logTime = m.int(8)
                times.append(logTime)
                seen.append(Int((logTime - 1_000) / 10))
            }
            #expect(times.min() == start && times.max() == end)
            // Its message indexes follow it and point at its messages.
            var next = position + 1
            while next < data.count, data[next].op == 0x07 {
                var m = Cursor(bytes: bytes, at: data[next].body)
                let channel = m.int(2), count = Int(m.int(4)) / 16
                for _ in 0..<count {
                    let (time, offset) = (m.int(8), Int(m.int(8)))
                    var message = Cursor(bytes: bytes, at: records.lowerBound + offset)
                    #expect(message.int(1) == 0x05)
                    _ = message.int(8)
                    #expect(message.int(2) == channel)
                    _ = message.int(4)
                    #expect(message.int(8) == time)
                }
                next += 1
            }
            #expect(next > position + 1)
        }
        #expect(seen == Array(0..<50))

        // Summary: schema, channels, statistics, chunk indexes; offsets naming each group.
        let summary = Self.records(bytes, summaryStart..<offsetStart)
        #expect(summary.map(\.op) == [0x03, 0x04, 0x04, 0x0B] + Array(repeating: 0x08, count: chunks.count))
        var statistics = Cursor(bytes: bytes, at: summary[3].body)
        #expect(statistics.int(8) == 50 && statistics.int(2) == 1 && statistics.int(4) == 2)
        _ = (statistics.int(4), statistics.int(4))
        #expect(Int(statistics.int(4)) == chunks.count && statistics.int(8) == 1_000 && statistics.int(8) == 1_490)
        for (index, chunk) in zip(summary.dropFirst(4), chunks) {
            var c = Cursor(bytes: bytes, at: index.body)
            _ = (c.int(8), c.int(8))
            #expect(Int(c.int(8)) == chunk.element.body - 9 && Int(c.int(8)) == chunk.element.end - chunk.element.body + 9)
        }
        let offsets = Self.records(bytes, offsetStart..<footerStart)
        #expect(offsets.count == 4 && offsets.allSatisfy { $0.op == 0x0E })
        for record in offsets {
            var c = Cursor(bytes: bytes, at: record.body)
            let (op, start, length) = (UInt8(c.int(1)), Int(c.int(8)), Int(c.int(8)))
            let group = Self.records(bytes, start..<start + length)
            #expect(!group.isEmpty && group.allSatisfy { $0.op == op })
        }
    }

    /// The camera's frame transform puts vehicle points where the geometry's own
    /// `sensorFromVehicle` and image axes put them.
    @Test(arguments: [(0.0, 0.0, 0.0), (-0.1, 0.02, 0.05), (0.2, -0.03, -0.1)])
    func cameraTransformMatchesTheGeometry(pitch: Double, roll: Double, yaw: Double) throws {
        var pose = MountPose.fallback
        pose.pitch = pitch
        pose.roll = roll
        pose.yaw = yaw
        let transform = FoxgloveEncoder.cameraTransform(pose, time: Foxglove.Time(seconds: 0))
        let q = transform.rotation, t = transform.translation
        #expect(abs(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w - 1) < 1e-12)
        for point in [SIMD3(20.0, 3, 0.5), SIMD3(8, -2, 1.5), SIMD3(50, 0, 0)] {
            let expected = CoordinateFrames.sensorToImageAxes * pose.sensorFromVehicle.apply(point)
            // Camera coordinates: the conjugate rotation of (point − translation).
            let v = point - SIMD3(t.x, t.y, t.z), u = SIMD3(-q.x, -q.y, -q.z)
            let rotated = v + 2 * q.w * cross(u, v) + 2 * cross(u, cross(u, v))
            #expect(abs(rotated.x - expected.x) < 1e-9 && abs(rotated.y - expected.y) < 1e-9 && abs(rotated.z - expected.z) < 1e-9)
        }
    }

    private func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}
