import Foundation

/// Whole-buffer `read(2)` and `write(2)`, retried on `EINTR`, for the places that must not go
/// through `FileHandle` (which traps on I/O errors) and must report the system's reason.
package enum FileDescriptorIO {
    /// Writes all `count` bytes at `base` to `fd`; returns the errno of a failure.
    package static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, count: Int) -> Int32? {
        var offset = 0
        while offset < count {
            let n = Glibc.write(fd, base + offset, count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }

    /// Reads from `fd` into `base` until `count` bytes are in or the input ends; returns how many
    /// bytes arrived and the errno of a failure.
    package static func readFully(_ fd: Int32, into base: UnsafeMutableRawPointer, count: Int) -> (filled: Int, error: Int32?) {
        var filled = 0
        while filled < count {
            let n = Glibc.read(fd, base + filled, count - filled)
            if n < 0 {
                if errno == EINTR { continue }
                return (filled, errno)
            }
            if n == 0 { break }
            filled += n
        }
        return (filled, nil)
    }
}
