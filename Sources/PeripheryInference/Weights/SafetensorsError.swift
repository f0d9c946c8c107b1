import PeripheryCore

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
    /// The head tensors do not make a valid `HeadOutputs`.
    case invalidHead(HeadOutputError)
    /// Any of the above, in a named file.
    indirect case inFile(path: String, SafetensorsError)

    public var description: String {
        switch self {
        case .unreadable(let reason): "cannot read: \(reason)"
        case .truncated(let needed, let actual): "file is truncated: needs \(needed) bytes, has \(actual)"
        case .headerTooLarge(let length, let limit): "header length \(length) exceeds the limit of \(limit) bytes"
        case .invalidHeader(let reason): "invalid header: \(reason)"
        case .invalidMetadata(let reason): "invalid __metadata__: \(reason)"
        case .invalidEntry(let tensor, let reason): "tensor '\(tensor)': \(reason)"
        case .sizeMismatch(let tensor, let expected, let actual):
            "tensor '\(tensor)': data_offsets span \(actual) bytes, its dtype and shape need \(expected)"
        case .offsetsDoNotTile(let tensor, let expected, let actual):
            "tensor '\(tensor)': data starts at byte \(actual), expected \(expected) (tensors must tile the buffer)"
        case .trailingBytes(let count): "\(count) bytes after the last tensor"
        case .missingTensor(let name): "missing tensor '\(name)'"
        case .unsupportedDtype(let tensor, let dtype): "tensor '\(tensor)': unsupported dtype \(dtype)"
        case .wrongShape(let tensor, let expected, let actual): "tensor '\(tensor)': shape \(actual), expected \(expected)"
        case .unexpectedTensor(let name): "unexpected tensor '\(name)'"
        case .wrongDtype(let tensor, let expected, let actual): "tensor '\(tensor)': dtype \(actual), expected \(expected)"
        case .invalidValue(let tensor, let reason): "tensor '\(tensor)': \(reason)"
        case .invalidHead(let error): error.description
        case .inFile(let path, let error): "\(path): \(error)"
        }
    }
}
