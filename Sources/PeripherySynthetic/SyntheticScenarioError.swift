/// Why a scripted scenario cannot be made.
public enum SyntheticScenarioError: Error, Equatable, CustomStringConvertible {
    /// No scenario has this name.
    case unknownScenario(String)
    /// The scenario has no such parameter (the lead of `lvs` stands still, only `lvd` brakes, `free` scripts nothing).
    case notApplicable(SyntheticScenario.Parameter, SyntheticScenario.Kind)
    /// The parameter's value lies outside what the scenario can drive.
    case outOfRange(SyntheticScenario.Parameter, value: Double, expected: ClosedRange<Double>)

    public var description: String {
        switch self {
        case .unknownScenario(let name):
            "unknown scenario '\(name)', expected one of \(SyntheticScenario.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
        case .notApplicable(let parameter, let kind):
            "--\(parameter.rawValue) does not apply to --scenario \(kind.rawValue), which takes "
                + (kind.parameters.isEmpty ? "none" : kind.parameters.map { "--\($0.rawValue)" }.joined(separator: ", "))
        case .outOfRange(let parameter, let value, let expected):
            "--\(parameter.rawValue) must be within \(expected.lowerBound) … \(expected.upperBound), got \(value)"
        }
    }
}
