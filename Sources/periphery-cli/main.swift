import Foundation

/// `periphery`: a thin command line over the Periphery libraries.
let commands: [any Command.Type] = [
    SelfCheckCommand.self, DetectCommand.self, RunCommand.self, TrackCommand.self, LUTCommand.self, DecodeCommand.self,
    SynthCommand.self, EvalCommand.self, EvalRealCommand.self, EvalEventsCommand.self, CalibrateCommand.self, ForwardCommand.self, BenchCommand.self,
    SoakCommand.self,
    InfoCommand.self, QuantizeCommand.self, PrepareCommand.self,
]

let usage = """
    USAGE: periphery <command> [options]

    Real-time monocular bird's-eye-view vehicle detection (Safety40).

    COMMANDS:
    \(commands.map { "  \($0.name.padding(toLength: 13, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

    Run `periphery <command> --help` for a command's options.
    """

// A closed pipe or an exceeded file-size limit must come back as a write error with a message
// (OutputFile), not as a signal that kills the process silently.
signal(SIGPIPE, SIG_IGN)
signal(SIGXFSZ, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, !["--help", "-h", "help"].contains(name) else {
    print(usage)
    exit(arguments.isEmpty ? 1 : 0)
}
guard let command = commands.first(where: { $0.name == name }) else {
    printError("error: unknown command '\(name)'\n\n\(usage)")
    exit(1)
}
let rest = Array(arguments.dropFirst())
if rest.contains("--help") || rest.contains("-h") {
    print(command.help)
    exit(0)
}
do {
    let status = try command.run(rest)
    try OutputFile.checkStandardOutput()
    exit(status)
} catch let error as IncompleteInput {
    printError("error: \(error)")
    exit(3)
} catch {
    printError("error: \(error)")
    exit(1)
}
