/// Why a safetensors file cannot be read, or does not hold the tensors a model needs.
///
/// Every case names the tensor or header field at fault; `inFile` adds the path.
public enum SafetensorsError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be opened or read.
    case unreadable(reason: String)
    /// The file is shorter than its 8-byte header length, header or data claim.
    case truncated(needed: Int, actual: Int)
    /// The header length exceeds the documented limit.
    case headerTooLarge(length: UInt64, limit: Int)
    /// The header is not a UTF-8 JSON object.
    case invalidHeader(reason: String)
    /// `__metadata__` is not a map of strings.
    case invalidMetadata(reason: String)
    /// A tensor entry is malformed (bad dtype, shape or offsets).
    case invalidEntry(tensor: String, reason: String)
    /// A tensor's byte range does not equal its element count times its element size.
    case sizeMismatch(tensor: String, expectedBytes: Int, actualBytes: Int)
    /// Tensor byte ranges overlap or leave gaps, so they do not tile the data buffer exactly.
    case offsetsDoNotTile(tensor: String, expectedBegin: Int, actualBegin: Int)
    /// The data buffer is longer than the tensors that tile it.
    case trailingBytes(count: Int)
    /// A tensor the caller needs is absent.
    case missingTensor(String)
    /// A tensor has a dtype the caller cannot use.
    case unsupportedDtype(tensor: String, dtype: String)
    /// A tensor has the wrong shape.
    case wrongShape(tensor: String, expected: String, actual: [Int])
    /// A tensor the caller does not know is present.
    case unexpectedTensor(String)
    /// A tensor has another dtype than the format requires.
    case wrongDtype(tensor: String, expected: String, actual: String)
    /// A tensor holds a value its role forbids (a non-finite or non-positive scale, …).
    case invalidValue(tensor: String, reason: String)
    /// Any of the above, in a named file.
    indirect case inFile(path: String, SafetensorsError)

    public var description: String {
        switch self {
        case let .unreadable(reason): "cannot read: \(reason)"
        case let .truncated(needed, actual): "file is truncated: needs \(needed) bytes, has \(actual)"
        case let .headerTooLarge(length, limit): "header length \(length) exceeds the limit of \(limit) bytes"
        case let .invalidHeader(reason): "invalid header: \(reason)"
        case let .invalidMetadata(reason): "invalid __metadata__: \(reason)"
        case let .invalidEntry(tensor, reason): "tensor '\(tensor)': \(reason)"
        case let .sizeMismatch(tensor, expected, actual):
            "tensor '\(tensor)': data_offsets span \(actual) bytes, its dtype and shape need \(expected)"
        case let .offsetsDoNotTile(tensor, expected, actual):
            "tensor '\(tensor)': data starts at byte \(actual), expected \(expected) (tensors must tile the buffer)"
        case let .trailingBytes(count): "\(count) bytes after the last tensor"
        case let .missingTensor(name): "missing tensor '\(name)'"
        case let .unsupportedDtype(tensor, dtype): "tensor '\(tensor)': unsupported dtype \(dtype)"
        case let .wrongShape(tensor, expected, actual): "tensor '\(tensor)': shape \(actual), expected \(expected)"
        case let .unexpectedTensor(name): "unexpected tensor '\(name)'"
        case let .wrongDtype(tensor, expected, actual): "tensor '\(tensor)': dtype \(actual), expected \(expected)"
        case let .invalidValue(tensor, reason): "tensor '\(tensor)': \(reason)"
        case let .inFile(path, error): "\(path): \(error)"
        }
    }
}
