import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryInference

/// Builds safetensors bytes from a header dictionary and a data buffer, so each test can break
/// exactly one rule of the format.
func safetensorsBytes(header: [String: Any], data: [UInt8], headerLength: UInt64? = nil) -> Data {
    let json = try! JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
    var bytes = Data()
    var length = (headerLength ?? UInt64(json.count)).littleEndian
    withUnsafeBytes(of: &length) { bytes.append(contentsOf: $0) }
    bytes.append(json)
    bytes.append(contentsOf: data)
    return bytes
}

func floatBytes(_ values: [Float]) -> [UInt8] {
    values.flatMap { v in withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } }
}

@Suite struct SafetensorsFileTests {
    @Test func readsF32F16AndBF16WithMetadata() throws {
        // F16: 1.0, −2.0, 65504 (max), 2⁻²⁴ (smallest subnormal), +∞.
        let half: [UInt16] = [0x3C00, 0xC000, 0x7BFF, 0x0001, 0x7C00]
        // BF16: the top halves of 1.5 and −0.15625.
        let bf: [UInt16] = [0x3FC0, 0xBE20]
        let f16Bytes = half.flatMap { v in withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        let bfBytes = bf.flatMap { v in withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        let f32 = floatBytes([0.5, -3.25, 7])
        let data = f32 + f16Bytes + bfBytes
        let header: [String: Any] = [
            "__metadata__": ["source": "test"],
            "a": ["dtype": "F32", "shape": [3], "data_offsets": [0, 12]],
            "b": ["dtype": "F16", "shape": [5, 1], "data_offsets": [12, 22]],
            "c": ["dtype": "BF16", "shape": [2], "data_offsets": [22, 26]],
        ]
        let file = try SafetensorsFile(data: safetensorsBytes(header: header, data: data))
        #expect(file.metadata == ["source": "test"])
        #expect(try file.floats("a") == [0.5, -3.25, 7])
        #expect(try file.floats("b") == [1, -2, 65504, 0x1p-24, .infinity])
        #expect(try file.floats("c") == [1.5, -0.15625])
        #expect(file.tensors["b"]?.shape == [5, 1])
    }

    @Test func halfPrecisionMatchesTheStandardOnEveryBitPattern() {
        // Independent reference: value = (−1)^s · 2^(e−15) · (1 + m/1024), subnormal 2^−14 · m/1024.
        for bits in 0...UInt16.max {
            let s: Float = bits & 0x8000 != 0 ? -1 : 1
            let e = Int(bits >> 10) & 0x1F, m = Float(bits & 0x3FF)
            let got = HalfPrecision.float(fromHalf: bits)
            if e == 0x1F {
                #expect(m == 0 ? got == s * .infinity : got.isNaN)
            } else if e == 0 {
                #expect(got == s * m / 1024 * 0x1p-14)
            } else if got != s * (1 + m / 1024) * Float(sign: .plus, exponent: e - 15, significand: 1) {
                Issue.record("half \(bits) converted to \(got)")
            }
        }
    }

    static var f32Entry: [String: Any] { ["dtype": "F32", "shape": [2], "data_offsets": [0, 8]] }

    static var badFiles: [(String, Data, SafetensorsError)] {
        [
            ("shorter than the length prefix", Data([1, 2, 3]), .truncated(needed: 8, actual: 3)),
            (
                "header length claims 10 GB", safetensorsBytes(header: [:], data: [], headerLength: 10_000_000_000),
                .headerTooLarge(length: 10_000_000_000, limit: SafetensorsFile.headerLimit)
            ),
            (
                "header runs past the file", safetensorsBytes(header: ["x": f32Entry], data: [], headerLength: 1000),
                .truncated(needed: 1008, actual: 8 + 54)
            ),
            (
                "unknown dtype", safetensorsBytes(header: ["w": ["dtype": "F8", "shape": [2], "data_offsets": [0, 2]]], data: [0, 0]),
                .unsupportedDtype(tensor: "w", dtype: "F8")
            ),
            (
                "size disagrees with shape",
                safetensorsBytes(header: ["w": ["dtype": "F32", "shape": [3], "data_offsets": [0, 8]]], data: floatBytes([1, 2])),
                .sizeMismatch(tensor: "w", expectedBytes: 12, actualBytes: 8)
            ),
            (
                "gap between tensors",
                safetensorsBytes(
                    header: ["a": ["dtype": "F32", "shape": [1], "data_offsets": [0, 4]], "b": ["dtype": "F32", "shape": [1], "data_offsets": [8, 12]]],
                    data: floatBytes([1, 2, 3])),
                .offsetsDoNotTile(tensor: "b", expectedBegin: 4, actualBegin: 8)
            ),
            (
                "overlapping tensors",
                safetensorsBytes(
                    header: ["a": ["dtype": "F32", "shape": [2], "data_offsets": [0, 8]], "b": ["dtype": "F32", "shape": [1], "data_offsets": [4, 8]]],
                    data: floatBytes([1, 2])),
                .offsetsDoNotTile(tensor: "b", expectedBegin: 8, actualBegin: 4)
            ),
            ("bytes after the last tensor", safetensorsBytes(header: ["w": f32Entry], data: floatBytes([1, 2, 3])), .trailingBytes(count: 4)),
            (
                "data shorter than the offsets", safetensorsBytes(header: ["w": f32Entry], data: floatBytes([1])),
                .truncated(needed: 8 + 54 + 8, actual: 8 + 54 + 4)
            ),
            (
                "negative dimension", safetensorsBytes(header: ["w": ["dtype": "F32", "shape": [-1], "data_offsets": [0, 4]]], data: floatBytes([1])),
                .invalidEntry(tensor: "w", reason: "shape holds a value that is not a non-negative integer")
            ),
            (
                "metadata value not a string", safetensorsBytes(header: ["__metadata__": ["n": 3]], data: []),
                .invalidMetadata(reason: "value of 'n' is not a string")
            ),
        ]
    }

    @Test(arguments: 0..<11)
    func rejectsMalformedFileWithNamedError(_ index: Int) {
        let (name, data, expected) = Self.badFiles[index]
        #expect(throws: expected, "\(name)") { try SafetensorsFile(data: data) }
    }

    @Test func rejectsNonJSONHeader() {
        var bytes = Data([5, 0, 0, 0, 0, 0, 0, 0])
        bytes.append(contentsOf: Array("{abc}".utf8))
        #expect(throws: SafetensorsError.invalidHeader(reason: "not valid JSON")) { try SafetensorsFile(data: bytes) }
    }

    @Test func rejectsNonUTF8Header() {
        var bytes = Data([4, 0, 0, 0, 0, 0, 0, 0])
        bytes.append(contentsOf: [0x7B, 0xFF, 0xFE, 0x7D])
        #expect(throws: SafetensorsError.invalidHeader(reason: "not UTF-8")) { try SafetensorsFile(data: bytes) }
    }

    @Test func fileErrorsNameThePath() {
        let path = "/nonexistent/head.safetensors"
        do {
            _ = try SafetensorsFile(path: path)
            Issue.record("opening a missing file succeeded")
        } catch {
            #expect(error.description.hasPrefix(path))
        }
    }

    @Test func floatsOfMissingOrIntegerTensorAreNamedErrors() throws {
        let header: [String: Any] = ["n": ["dtype": "I64", "shape": [1], "data_offsets": [0, 8]]]
        let file = try SafetensorsFile(data: safetensorsBytes(header: header, data: Array(repeating: 0, count: 8)))
        #expect(throws: SafetensorsError.unsupportedDtype(tensor: "n", dtype: "I64")) { try file.floats("n") }
        #expect(throws: SafetensorsError.missingTensor("x")) { try file.floats("x") }
    }

    @Test func headOutputsAcceptLeadingBatchAndRejectWrongTrailingDimension() throws {
        let n = Safety40.candidateCount
        func head(classesShape: [Int]) -> Data {
            let sizes = [("boxes", 9), ("classes", 4), ("directions", 2)]
            var header: [String: Any] = [:]
            var offset = 0
            for (name, c) in sizes {
                let shape = name == "classes" ? classesShape : [n, c]
                header[name] = ["dtype": "F32", "shape": shape, "data_offsets": [offset, offset + 4 * n * c]]
                offset += 4 * n * c
            }
            return safetensorsBytes(header: header, data: [UInt8](repeating: 0, count: offset))
        }
        let batched = try SafetensorsFile(data: head(classesShape: [1, n, 4])).headOutputs()
        #expect(batched.classes.count == 4 * n)
        #expect(throws: SafetensorsError.wrongShape(tensor: "classes", expected: "[6720, 4]", actual: [4, n])) {
            try SafetensorsFile(data: head(classesShape: [4, n])).headOutputs()
        }
    }
}
