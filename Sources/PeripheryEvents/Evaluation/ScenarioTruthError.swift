/// Why a drive's truth cannot be read: the file, and the field with what it should have held.
public enum ScenarioTruthError: Error, Equatable, CustomStringConvertible {
    /// The drive has no `truth.json`: it was not written by `periphery synth --sequence`.
    case missing(path: String)
    /// A file cannot be read or is not a JSON object.
    case unreadable(path: String, reason: String)
    /// A field is absent or holds the wrong thing (`field` is its path, `trajectory[3].in_path_lead.ttc_s`).
    case field(path: String, field: String, expected: String)

    public var description: String {
        switch self {
        case .missing(let path): "\(path): no such file; a drive needs the truth.json of `periphery synth --sequence --scenario`"
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .field(let path, let field, let expected): "\(path): \(field) must be \(expected)"
        }
    }
}
