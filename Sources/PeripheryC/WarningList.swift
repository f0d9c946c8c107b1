import Foundation

/// A source's warnings as C strings that stay put until the source is freed: the session's threads
/// add to it while the caller reads it (`periphery_source_warning`).
final class WarningList: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var lines: [UnsafeMutablePointer<CChar>] = []

    deinit {
        for line in lines { free(line) }
    }

    /// Adds one warning.
    func append(_ warning: String) {
        guard let line = strdup(warning) else { return }
        lock.withLock { lines.append(line) }
    }

    /// The warning at `index`, or nil past the last.
    func line(at index: Int) -> UnsafePointer<CChar>? {
        lock.withLock { index < lines.count ? UnsafePointer(lines[index]) : nil }
    }
}
