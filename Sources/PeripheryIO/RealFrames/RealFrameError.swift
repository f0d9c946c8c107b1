import PeripheryGeometry

/// A file of the real-frame set (`Tests/real/README.md`) that cannot be used, named with its field.
public enum RealFrameError: Error, Equatable, CustomStringConvertible {
    /// The folder or a file cannot be read, or is not JSON.
    case unreadable(path: String, reason: String)
    /// A labels file's field is missing or wrong (`vehicles[2].box`); `expected` says what it must be.
    case field(path: String, field: String, expected: String)
    /// The camera file a labels file names is not a valid calibration.
    case calibration(labels: String, CalibrationError)

    /// One line naming the file, the field and what was expected.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .field(let path, let field, let expected): "\(path): field '\(field)' must be \(expected)"
        case .calibration(let labels, let error): "\(labels): its calibration: \(error)"
        }
    }
}
