import Foundation

/// A failed write of an output file.
public struct OutputWriteError: Error, Equatable, CustomStringConvertible {
    /// The file that was to be written.
    public var path: String
    /// The system's reason (`strerror`), e.g. "No space left on device".
    public var reason: String

    public var description: String { "\(path): cannot write (\(reason))" }
}

/// Writes files whole or not at all.
///
/// The bytes go to a new temporary file beside `path` (same folder, so the rename cannot cross
/// file systems), are flushed to the disk, and the file is renamed onto `path`. A reader sees the
/// old file or the complete new one, never a prefix; on any failure (a full disk, a file-size
/// limit, a missing folder) the temporary file is removed, `path` is left as it was, and the error
/// carries the system's reason.
package enum AtomicFile {
    /// Writes `data` to `path` atomically.
    ///
    /// - Throws: `OutputWriteError` naming `path`.
    package static func write(_ data: Data, to path: String) throws(OutputWriteError) {
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        func failure(_ step: String, _ code: Int32) -> OutputWriteError {
            OutputWriteError(path: path, reason: "\(step): \(String(cString: strerror(code)))")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("create", errno) }
        var error: OutputWriteError?
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            if let code = FileDescriptorIO.writeAll(fd, base, count: bytes.count) { error = failure("write", code) }
        }
        if error == nil, fsync(fd) != 0 { error = failure("sync", errno) }
        if close(fd) != 0, error == nil { error = failure("close", errno) }
        if error == nil, rename(temporary, path) != 0 { error = failure("rename", errno) }
        if let error {
            unlink(temporary)
            throw error
        }
    }
}
