import Foundation

/// Reads whole files with a size limit checked before any memory is committed.
///
/// `open`, `fstat`, then one buffer of exactly the file's size: a file over `limit` is refused from
/// its inode, a directory or device is refused as not a regular file, and a file that shrinks or
/// grows while being read is reported rather than returned short.
package enum FileBytes {
    /// The bytes of `path`, or the system's reason why not.
    package static func read(path: String, limit: Int) -> Result<Data, FileReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.system(String(cString: strerror(errno)))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.system(String(cString: strerror(errno)))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.notRegularFile) }
        let size = Int(info.st_size)
        guard size <= limit else { return .failure(.tooLarge(size: size, limit: limit)) }
        var data = Data(count: size)
        let outcome: FileReadFailure? = data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            let (filled, error) = FileDescriptorIO.readFully(fd, into: base, count: size)
            if let error { return .system(String(cString: strerror(error))) }
            return filled < size ? .changedWhileReading : nil
        }
        if let outcome { return .failure(outcome) }
        return .success(data)
    }
}

/// Why `FileBytes.read` returned no bytes.
package enum FileReadFailure: Error, Equatable, CustomStringConvertible {
    case system(String)
    case notRegularFile
    case tooLarge(size: Int, limit: Int)
    case changedWhileReading

    package var description: String {
        switch self {
        case .system(let reason): reason
        case .notRegularFile: "not a regular file"
        case .tooLarge(let size, let limit): "\(size) bytes exceeds the \(limit)-byte limit"
        case .changedWhileReading: "the file changed while it was read"
        }
    }
}
