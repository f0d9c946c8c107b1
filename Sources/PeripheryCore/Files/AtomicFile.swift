import Foundation

/// A failed write of an output file.
public struct OutputWriteError: Error, Equatable, CustomStringConvertible {
    /// The file that was to be written.
    public var path: String
    /// The system's reason (`strerror`), e.g. "No space left on device".
    public var reason: String

    public var description: String { "\(path): cannot write (\(reason))" }
}

/// Writes files whole or not at all: the one place where the package replaces a file.
///
/// The bytes go to a temporary file beside `path` (same folder, so the rename cannot cross file
/// systems); `commit()` flushes it to the disk and renames it onto `path` in one step (rename(2)
/// replaces an existing file atomically). A reader sees the old file or the complete new one, never
/// a prefix. `discard()` removes the temporary file. A writer dropped without either closes its file
/// and leaves it under its temporary name, so that what was written before a failure is kept (the
/// replay sidecar's `.partial`). Errors carry the system's reason and name `path`.
package final class AtomicFile {
    /// The file that `commit()` replaces.
    package let path: String
    /// Where the bytes are written until `commit()`.
    package let temporaryPath: String
    private var fd: Int32

    /// Creates the temporary file: `temporary`, truncated if it exists, or else a fresh unique name
    /// beside `path`.
    ///
    /// - Throws: `OutputWriteError` naming `path`.
    package init(path: String, temporary: String? = nil) throws(OutputWriteError) {
        self.path = path
        temporaryPath = temporary ?? "\(path).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (temporary == nil ? O_EXCL : O_TRUNC)
        fd = open(temporaryPath, flags, 0o644)
        guard fd >= 0 else { throw AtomicFile.failure(path, "create", errno) }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Appends `bytes` to the temporary file.
    ///
    /// - Throws: `OutputWriteError` naming `path`.
    package func append(_ bytes: UnsafeRawBufferPointer) throws(OutputWriteError) {
        precondition(fd >= 0, "\(path): append after commit or discard")
        guard let base = bytes.baseAddress else { return }
        if let code = FileDescriptorIO.writeAll(fd, base, count: bytes.count) { throw AtomicFile.failure(path, "write", code) }
    }

    /// Appends `data`.
    package func append(_ data: Data) throws(OutputWriteError) {
        var failure: OutputWriteError?
        data.withUnsafeBytes { bytes in
            do throws(OutputWriteError) { try append(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Flushes the temporary file to the disk and renames it onto `path`; on failure the temporary
    /// file is removed and `path` is left as it was.
    ///
    /// - Throws: `OutputWriteError` naming `path`.
    package func commit() throws(OutputWriteError) {
        precondition(fd >= 0, "\(path): commit after commit or discard")
        var error: OutputWriteError?
        if fsync(fd) != 0 { error = AtomicFile.failure(path, "sync", errno) }
        if close(fd) != 0, error == nil { error = AtomicFile.failure(path, "close", errno) }
        fd = -1
        if error == nil, rename(temporaryPath, path) != 0 { error = AtomicFile.failure(path, "rename", errno) }
        if let error {
            unlink(temporaryPath)
            throw error
        }
    }

    /// Closes and removes the temporary file; `path` is left as it was.
    package func discard() {
        if fd >= 0 { close(fd) }
        fd = -1
        unlink(temporaryPath)
    }

    /// Writes `data` to `path` atomically.
    ///
    /// - Throws: `OutputWriteError` naming `path`.
    package static func write(_ data: Data, to path: String) throws(OutputWriteError) {
        let file = try AtomicFile(path: path)
        do throws(OutputWriteError) {
            try file.append(data)
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    private static func failure(_ path: String, _ step: String, _ code: Int32) -> OutputWriteError {
        OutputWriteError(path: path, reason: "\(step): \(String(cString: strerror(code)))")
    }
}
