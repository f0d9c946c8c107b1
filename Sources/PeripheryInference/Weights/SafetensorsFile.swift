import Foundation

/// A memory-mapped safetensors file: an 8-byte little-endian header length, a UTF-8 JSON header,
/// then one data buffer that the tensors tile exactly.
///
/// Everything is validated when the file is opened: the header length against `headerLimit` and
/// the file size, the JSON, `__metadata__`, every dtype and shape, and that the byte ranges are
/// consistent with the shapes and cover the data buffer with no gap or overlap.
public struct SafetensorsFile: Sendable {
    /// Element type of a stored tensor.
    public enum DType: String, Sendable, CaseIterable {
        case f64 = "F64", f32 = "F32", f16 = "F16", bf16 = "BF16"
        case i64 = "I64", i32 = "I32", i16 = "I16", i8 = "I8"
        case u64 = "U64", u32 = "U32", u16 = "U16", u8 = "U8", bool = "BOOL"

        /// Bytes per element.
        public var size: Int {
            switch self {
            case .f64, .i64, .u64: 8
            case .f32, .i32, .u32: 4
            case .f16, .bf16, .i16, .u16: 2
            case .i8, .u8, .bool: 1
            }
        }
    }

    /// Where a tensor lives in the data buffer.
    public struct TensorInfo: Sendable, Hashable {
        /// Element type.
        public let dtype: DType
        /// Dimensions, outermost first.
        public let shape: [Int]
        /// Byte range inside the data buffer.
        public let byteRange: Range<Int>

        /// Number of elements.
        public var elementCount: Int { shape.reduce(1, *) }
    }

    /// Largest accepted header, bytes (the format's own limit is 100 MB).
    static let headerLimit = 100_000_000

    /// The file's `__metadata__` map.
    public let metadata: [String: String]
    /// Tensor table by name.
    public let tensors: [String: TensorInfo]
    private let data: Data
    private let dataStart: Int

    /// Opens and validates a file, memory-mapping its data.
    ///
    /// - Throws: `SafetensorsError.inFile` naming the path and the problem.
    public init(path: String) throws(SafetensorsError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw .inFile(path: path, .unreadable(reason: error.localizedDescription))
        }
        do {
            try self.init(data: data)
        } catch let error {
            throw .inFile(path: path, error)
        }
    }

    /// Validates an in-memory file.
    ///
    /// - Throws: `SafetensorsError` naming the problem.
    public init(data: Data) throws(SafetensorsError) {
        guard data.count >= 8 else { throw .truncated(needed: 8, actual: data.count) }
        let headerLength = data.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        guard headerLength <= UInt64(SafetensorsFile.headerLimit) else {
            throw .headerTooLarge(length: headerLength, limit: SafetensorsFile.headerLimit)
        }
        let start = 8 + Int(headerLength)
        guard data.count >= start else { throw .truncated(needed: start, actual: data.count) }
        let header = data.subdata(in: data.startIndex + 8..<data.startIndex + start)
        guard String(data: header, encoding: .utf8) != nil else { throw .invalidHeader(reason: "not UTF-8") }
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: header) as? [String: Any] else {
                throw SafetensorsError.invalidHeader(reason: "not a JSON object")
            }
            root = object
        } catch let error as SafetensorsError {
            throw error
        } catch {
            throw .invalidHeader(reason: "not valid JSON")
        }

        var metadata: [String: String] = [:]
        if let raw = root["__metadata__"] {
            guard let map = raw as? [String: Any] else { throw .invalidMetadata(reason: "not an object") }
            for (key, value) in map {
                guard let string = value as? String else { throw .invalidMetadata(reason: "value of '\(key)' is not a string") }
                metadata[key] = string
            }
        }

        var tensors: [String: TensorInfo] = [:]
        for (name, entry) in root where name != "__metadata__" {
            tensors[name] = try SafetensorsFile.parseEntry(name, entry)
        }
        let dataLength = data.count - start
        var next = 0
        for (name, info) in tensors.sorted(by: { ($0.value.byteRange.lowerBound, $0.key) < ($1.value.byteRange.lowerBound, $1.key) }) {
            guard info.byteRange.lowerBound == next else {
                throw .offsetsDoNotTile(tensor: name, expectedBegin: next, actualBegin: info.byteRange.lowerBound)
            }
            next = info.byteRange.upperBound
        }
        guard next <= dataLength else { throw .truncated(needed: start + next, actual: data.count) }
        guard next == dataLength else { throw .trailingBytes(count: dataLength - next) }

        self.metadata = metadata
        self.tensors = tensors
        self.data = data
        dataStart = start
    }

    static func parseEntry(_ name: String, _ entry: Any) throws(SafetensorsError) -> TensorInfo {
        guard let object = entry as? [String: Any] else { throw .invalidEntry(tensor: name, reason: "not an object") }
        guard let dtypeName = object["dtype"] as? String else { throw .invalidEntry(tensor: name, reason: "missing dtype") }
        guard let dtype = DType(rawValue: dtypeName) else { throw .unsupportedDtype(tensor: name, dtype: dtypeName) }
        guard let shapeValues = object["shape"] as? [Any] else { throw .invalidEntry(tensor: name, reason: "missing shape") }
        let shape = try shapeValues.map { value throws(SafetensorsError) -> Int in
            guard let n = exactInteger(value), n >= 0 else {
                throw .invalidEntry(tensor: name, reason: "shape holds a value that is not a non-negative integer")
            }
            return n
        }
        guard let offsets = object["data_offsets"] as? [Any], offsets.count == 2,
            let begin = exactInteger(offsets[0]), let end = exactInteger(offsets[1]), begin >= 0, end >= begin
        else {
            throw .invalidEntry(tensor: name, reason: "data_offsets must be [begin, end] with 0 ≤ begin ≤ end")
        }
        var bytes = dtype.size
        for dimension in shape {
            let (product, overflow) = bytes.multipliedReportingOverflow(by: dimension)
            guard !overflow else { throw .invalidEntry(tensor: name, reason: "shape \(shape) overflows") }
            bytes = product
        }
        guard bytes == end - begin else { throw .sizeMismatch(tensor: name, expectedBytes: bytes, actualBytes: end - begin) }
        return TensorInfo(dtype: dtype, shape: shape, byteRange: begin..<end)
    }

    /// An integral JSON number that fits in Int (booleans and fractions refused).
    static func exactInteger(_ value: Any) -> Int? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        let d = number.doubleValue
        guard d == d.rounded(), abs(d) < 9.0e15 else { return nil }
        return number.intValue
    }

    /// The tensor's elements as Float, converting F16 and BF16.
    ///
    /// - Throws: `missingTensor` or `unsupportedDtype` (any non-float dtype) naming the tensor.
    public func floats(_ name: String) throws(SafetensorsError) -> [Float] {
        guard let info = tensors[name] else { throw .missingTensor(name) }
        let count = info.elementCount
        let base = data.startIndex + dataStart + info.byteRange.lowerBound
        let bytes = data[base..<base + info.byteRange.count]
        let convert: (UnsafeRawBufferPointer, Int) -> Float
        switch info.dtype {
        case .f32:
            convert = { raw, i in Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))) }
        case .f16:
            convert = { raw, i in HalfPrecision.float(fromHalf: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))) }
        case .bf16:
            convert = { raw, i in Float(bitPattern: UInt32(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))) << 16) }
        default:
            throw .unsupportedDtype(tensor: name, dtype: info.dtype.rawValue)
        }
        return bytes.withUnsafeBytes { raw in
            [Float](unsafeUninitializedCapacity: count) { out, initialized in
                for i in 0..<count { out[i] = convert(raw, i) }
                initialized = count
            }
        }
    }

    /// The raw elements of a one-byte tensor, which must have dtype `dtype` (`.i8`, `.u8`).
    ///
    /// - Throws: `missingTensor` or `wrongDtype` naming the tensor.
    public func bytes(_ name: String, dtype: DType) throws(SafetensorsError) -> [UInt8] {
        precondition(dtype.size == 1, "bytes(_:dtype:) reads one-byte dtypes")
        guard let info = tensors[name] else { throw .missingTensor(name) }
        guard info.dtype == dtype else { throw .wrongDtype(tensor: name, expected: dtype.rawValue, actual: info.dtype.rawValue) }
        let base = data.startIndex + dataStart + info.byteRange.lowerBound
        return [UInt8](data[base..<base + info.byteRange.count])
    }
}
