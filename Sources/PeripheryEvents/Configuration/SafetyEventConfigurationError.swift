/// Why a `SafetyEventConfiguration` cannot be used.
public enum SafetyEventConfigurationError: Error, Equatable, CustomStringConvertible {
    /// A field is NaN, infinite or outside what it allows; `field` is its path in the
    /// configuration (for example `forwardCollision.timeToCollisionSeconds`).
    case invalidField(String, value: Double, expected: String)

    /// The path of the offending field.
    public var field: String {
        switch self {
        case .invalidField(let field, _, _): field
        }
    }

    public var description: String {
        switch self {
        case .invalidField(let field, let value, let expected):
            "safety-event configuration: '\(field)' is \(value); expected \(expected)"
        }
    }
}
