import Foundation

/// A failure the CLI reports on stderr before exiting with status 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}

/// Hand-parsed `--name value` options, `--flag` switches and positional arguments of one command.
struct Arguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    /// Arguments that are not options, in order.
    private(set) var positional: [String] = []

    /// Parses `arguments` against the options (taking a value) and flags (taking none) a command knows.
    init(_ arguments: [String], options: Set<String>, flags known: Set<String>) throws(CLIError) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if known.contains(name) {
                guard inline == nil else { throw CLIError("option --\(name) takes no value") }
                flags.insert(name)
            } else if options.contains(name) {
                guard let value = inline ?? rest.popFirst() else { throw CLIError("option --\(name) needs a value") }
                guard values[name] == nil else { throw CLIError("option --\(name) given twice") }
                values[name] = value
            } else {
                throw CLIError("unknown option --\(name)")
            }
        }
    }

    /// Whether the flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of an option, if given.
    func value(_ name: String) -> String? { values[name] }

    /// The value of a required option.
    func required(_ name: String) throws(CLIError) -> String {
        guard let value = values[name] else { throw CLIError("missing required option --\(name)") }
        return value
    }

    /// A finite number option within `range`, or `fallback` when absent.
    func number(_ name: String, default fallback: Double, in range: ClosedRange<Double>) throws(CLIError) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), value.isFinite else { throw CLIError("--\(name) must be a number, got '\(text)'") }
        guard range.contains(value) else {
            throw CLIError("--\(name) must be within \(range.lowerBound) … \(range.upperBound), got \(text)")
        }
        return value
    }

    /// Fails if any positional argument was given.
    func expectNoPositional() throws(CLIError) {
        if let first = positional.first { throw CLIError("unexpected argument '\(first)'") }
    }
}

/// One `periphery` subcommand.
protocol Command {
    /// Name on the command line.
    static var name: String { get }
    /// One-line summary for `periphery --help`.
    static var summary: String { get }
    /// Full `--help` text.
    static var help: String { get }
    /// Runs with the arguments after the command name; returns the exit status.
    static func run(_ arguments: [String]) throws -> Int32
}

/// Writes a line to standard error.
func printError(_ message: String) {
    OutputFile.writeStandardError(message + "\n")
}
