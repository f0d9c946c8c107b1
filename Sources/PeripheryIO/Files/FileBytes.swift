import Foundation
import PeripheryCore

/// Reads whole files with a size limit checked before any memory is committed.
///
/// `open`, `fstat`, then one buffer of exactly the file's size: a file over `limit` is refused from
/// its inode, a directory or device is refused as not a regular file, and a file that shrinks or
/// grows while being read is reported rather than returned short.
package enum FileBytes {
    /// The bytes of `path`, or the system's reason why not.
    package static func read(path: String, limit: Int) -> Result<Data, FileReadError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.system(code: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.system(code: errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.notRegularFile) }
        let size = Int(info.st_size)
        guard size <= limit else { return .failure(.tooLarge(size: size, limit: limit)) }
        var data = Data(count: size)
        let outcome: FileReadError? = data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            let (filled, error) = FileDescriptorIO.readFully(fd, into: base, count: size)
            if let error { return .system(code: error) }
            return filled < size ? .changedWhileReading : nil
        }
        if let outcome { return .failure(outcome) }
        return .success(data)
    }
}

/// Why a file's bytes could not be read (`ImageError.unreadable`, `DetectionStreamError.unreadable`).
public enum FileReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system refused: `code` is the `errno` of `open`, `fstat` or `read`.
    case system(code: Int32)
    /// A directory, device or other non-regular file.
    case notRegularFile
    /// The file is larger than the reader accepts.
    case tooLarge(size: Int, limit: Int)
    /// The file shrank while it was read.
    case changedWhileReading

    public var description: String {
        switch self {
        case .system(let code): String(cString: strerror(code))
        case .notRegularFile: "not a regular file"
        case .tooLarge(let size, let limit): "\(size) bytes exceeds the \(limit)-byte limit"
        case .changedWhileReading: "the file changed while it was read"
        }
    }
}
