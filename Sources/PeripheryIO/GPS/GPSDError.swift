/// Why gpsd cannot be reached, or why one line of its JSON protocol was rejected.
///
/// The connection cases name the `host:port` tried, so that a message read in a log says which gpsd
/// was meant; the line cases say what was wrong with the line without quoting more than a short
/// excerpt of it (a hostile line must not flood the log).
public enum GPSDError: Error, Equatable, CustomStringConvertible {
    /// The host name does not resolve, the port is out of range, or a socket call failed.
    case cannotConnect(host: String, port: Int, reason: String)
    /// Nothing listens at `host:port` (ECONNREFUSED).
    case refused(host: String, port: Int)
    /// The connection did not complete within `seconds`.
    case timeout(host: String, port: Int, seconds: Double)
    /// The line is longer than `limit` bytes (gpsd's own lines are well under it).
    case lineTooLong(length: Int, limit: Int)
    /// The line is not one JSON value: `reason` at byte `offset`.
    case malformedJSON(offset: Int, reason: String)
    /// Arrays or objects nest deeper than `limit`.
    case nestedTooDeep(limit: Int)
    /// The line is JSON but not an object with a string `class` member.
    case notAReport
    /// A member appears twice in one object, which makes the report ambiguous.
    case duplicateField(String)
    /// A TPV report lacks a member it must have.
    case missingField(String)
    /// A member has the wrong JSON type: `expected` names the one it must have.
    case wrongType(field: String, expected: String)
    /// A number is NaN or infinite, or overflows a double.
    case notFinite(field: String)
    /// A number is outside the range a real receiver reports (e.g. speed over 150 m/s).
    case outOfRange(field: String, value: Double)
    /// A `time` member that is not ISO 8601 UTC (`2024-06-01T12:00:00.000Z`).
    case malformedTime(String)

    public var description: String {
        switch self {
        case .cannotConnect(let host, let port, let reason): "gpsd at \(host):\(port): cannot connect: \(reason)"
        case .refused(let host, let port): "gpsd at \(host):\(port): connection refused (is gpsd running?)"
        case .timeout(let host, let port, let seconds): "gpsd at \(host):\(port): no connection within \(seconds) s"
        case .lineTooLong(let length, let limit): "gpsd line of \(length) bytes, over the limit of \(limit)"
        case .malformedJSON(let offset, let reason): "gpsd line is not JSON: \(reason) at byte \(offset)"
        case .nestedTooDeep(let limit): "gpsd line nests deeper than \(limit) levels"
        case .notAReport: "gpsd line is not an object with a string \"class\""
        case .duplicateField(let field): "gpsd report has \"\(field)\" twice"
        case .missingField(let field): "gpsd report lacks \"\(field)\""
        case .wrongType(let field, let expected): "gpsd report's \"\(field)\" is not \(expected)"
        case .notFinite(let field): "gpsd report's \"\(field)\" is not a finite number"
        case .outOfRange(let field, let value): "gpsd report's \"\(field)\" is out of range: \(value)"
        case .malformedTime(let text): "gpsd report's time \"\(text)\" is not ISO 8601 UTC"
        }
    }
}
