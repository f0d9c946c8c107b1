/// Why a live view server could not start.
public enum LiveViewServerError: Error, Equatable, CustomStringConvertible {
    /// `--serve`'s value is not `[HOST:]PORT`.
    case invalidAddress(String, reason: String)
    /// The address could not be bound (in use, not an address of this machine, no permission).
    case cannotListen(address: String, reason: String)
    /// The token given is empty or has characters other than letters, digits and `-._~`.
    case invalidToken(reason: String)
    /// The page's files are missing from the installation.
    case pageNotFound(searched: [String])

    public var description: String {
        switch self {
        case .invalidAddress(let value, let reason): "--serve \(value): \(reason)"
        case .cannotListen(let address, let reason): "cannot serve on \(address): \(reason)"
        case .invalidToken(let reason): "the live view's token: \(reason)"
        case .pageNotFound(let searched): "the live view's page is missing (looked in \(searched.joined(separator: ", ")))"
        }
    }
}
