/// Why camera intrinsics, a mount pose or a calibration file cannot be used.
///
/// Every case names the offending field with its JSON path (for example `intrinsics.fx`) and, for
/// files, the file.
public enum CalibrationError: Error, Equatable, CustomStringConvertible {
    /// A field is absent.
    case missingField(String)
    /// A field has the wrong JSON type or shape.
    case wrongType(field: String, expected: String)
    /// A number is NaN or infinite.
    case nonFinite(field: String)
    /// A value is outside what the field allows.
    case outOfRange(field: String, value: Double, allowed: String)
    /// The file cannot be read or is not JSON.
    case unreadable(path: String, reason: String)
    /// A field is invalid inside a file.
    indirect case inFile(path: String, CalibrationError)

    public var description: String {
        switch self {
        case .missingField(let field): "missing field '\(field)'"
        case .wrongType(let field, let expected): "field '\(field)' must be \(expected)"
        case .nonFinite(let field): "field '\(field)' is not a finite number"
        case .outOfRange(let field, let value, let allowed): "field '\(field)' = \(value) is out of range (\(allowed))"
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .inFile(let path, let error): "\(path): \(error)"
        }
    }

    /// The field this error names, if any.
    public var field: String? {
        switch self {
        case .missingField(let f), .wrongType(let f, _), .nonFinite(let f), .outOfRange(let f, _, _): f
        case .unreadable: nil
        case .inFile(_, let error): error.field
        }
    }
}

extension CalibrationError {
    /// The same error with its field renamed.
    func renamingField(_ rename: (String) -> String) -> CalibrationError {
        switch self {
        case .missingField(let f): return .missingField(rename(f))
        case .wrongType(let f, let e): return .wrongType(field: rename(f), expected: e)
        case .nonFinite(let f): return .nonFinite(field: rename(f))
        case .outOfRange(let f, let v, let a): return .outOfRange(field: rename(f), value: v, allowed: a)
        case .unreadable, .inFile: return self
        }
    }
}

/// Checks that `value` is finite and inside `range`, naming `field` otherwise.
func checkField(
    _ value: Double, _ field: String, in range: ClosedRange<Double> = -.infinity ... .infinity,
    open: Bool = false, allowed: @autoclosure () -> String
) throws(CalibrationError) {
    guard value.isFinite else { throw .nonFinite(field: field) }
    let inside = open ? (value > range.lowerBound && value < range.upperBound) : range.contains(value)
    guard inside else { throw .outOfRange(field: field, value: value, allowed: allowed()) }
}
