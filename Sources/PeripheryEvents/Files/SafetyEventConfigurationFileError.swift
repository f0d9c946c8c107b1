/// Why a safety-event configuration file cannot be used; each names the file, and the field where
/// there is one.
public enum SafetyEventConfigurationFileError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(path: String)
    /// The file is larger than a configuration can be.
    case tooLarge(path: String, bytes: Int)
    /// The file is not one JSON object.
    case notAnObject(path: String)
    /// A key that is no field of the configuration (`field` is its path, `forwardCollision.ttc`).
    case unknownField(path: String, field: String)
    /// A field holds a value of the wrong kind: a string, a list, a fraction where frames are counted.
    case wrongType(path: String, field: String, expected: String)
    /// The values are read but out of their ranges (`SafetyEventConfiguration.validate()`).
    case invalid(path: String, SafetyEventConfigurationError)

    /// The path of the offending field, if one is at fault.
    public var field: String? {
        switch self {
        case .unreadable, .tooLarge, .notAnObject: nil
        case .unknownField(_, let field), .wrongType(_, let field, _): field
        case .invalid(_, let error): error.field
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path): "\(path): cannot be read"
        case .tooLarge(let path, let bytes): "\(path): \(bytes) bytes; a safety-event configuration is at most 64 KiB"
        case .notAnObject(let path): "\(path): not a JSON object of safety-event settings"
        case .unknownField(let path, let field): "\(path): '\(field)' is not a safety-event setting"
        case .wrongType(let path, let field, let expected): "\(path): '\(field)' must be \(expected)"
        case .invalid(let path, let error): "\(path): \(error)"
        }
    }
}
