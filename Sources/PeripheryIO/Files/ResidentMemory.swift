import Foundation

/// The resident set size of this process, as `/proc/self/statm` reports it (Linux).
package enum ResidentMemory {
    /// Bytes resident now, or `nil` when `/proc/self/statm` cannot be read or parsed.
    package static func current() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        return bytes(statm: text, pageSize: Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// Resident bytes from the text of a statm file: its second field, in pages; `nil` unless that
    /// field is a non-negative integer.
    package static func bytes(statm text: String, pageSize: Int) -> Int? {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count > 1, let pages = Int(fields[1]), pages >= 0 else { return nil }
        return pages * pageSize
    }
}
