import Foundation
import Periphery

/// Where the CLI's results go: files are written whole or not at all, and a failing standard
/// output (a full disk, a closed pipe) is an error, never a silently short result.
enum OutputFile {
    /// Writes `data` to `path` whole or not at all (`AtomicFile`).
    static func write(_ data: Data, to path: String) throws(CLIError) {
        do {
            try AtomicFile.write(data, to: path)
        } catch {
            throw CLIError(error.description)
        }
    }

    /// Writes `data` to standard output, unbuffered.
    static func writeStandardOutput(_ data: Data) throws(CLIError) {
        writeUnchecked(data)
        try checkStandardOutput()
    }

    /// Throws when any write to standard output so far has failed.
    static func checkStandardOutput() throws(CLIError) {
        if let failure = standardOutputFailure {
            throw CLIError("standard output: \(String(cString: strerror(failure)))")
        }
    }

    /// The first failed write's errno. Only the main thread writes results.
    nonisolated(unsafe) private static var standardOutputFailure: Int32?

    /// Writes to file descriptor 1, remembering the first failure (later writes are dropped).
    static func writeUnchecked(_ data: Data) {
        guard standardOutputFailure == nil else { return }
        standardOutputFailure = writeAll(data, to: STDOUT_FILENO)
    }

    /// Writes messages and progress to file descriptor 2. A failing standard error is ignored:
    /// there is nowhere left to report it, and the exit status still tells (FileHandle would trap).
    static func writeStandardError(_ text: String) {
        _ = writeAll(Data(text.utf8), to: STDERR_FILENO)
    }

    /// Writes every byte to `fd`; returns the errno of a failure.
    private static func writeAll(_ data: Data, to fd: Int32) -> Int32? {
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return nil }
            return FileDescriptorIO.writeAll(fd, base, count: bytes.count)
        }
    }
}

/// One line of results on standard output. It shadows `Swift.print` in this module so that every
/// result goes through `OutputFile`, whose failures `main` turns into an error and exit status 1
/// (the C library's buffered `stdout` would lose them).
func print(_ line: String) {
    OutputFile.writeUnchecked(Data((line + "\n").utf8))
}
