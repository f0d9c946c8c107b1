import Foundation

/// A CSV file with a header row, read column by name.
///
/// Rows that cannot be used are not fatal: each is reported with its line number and skipped, as
/// a recorder's files are expected to end mid-row after a crash. A missing column is an error.
package struct CSVTable {
    /// Column index by header name.
    let columns: [String: Int]
    /// Data rows with their 1-based line numbers.
    let rows: [(line: Int, fields: [Substring])]
    /// Lines refused before splitting (too long), with their 1-based numbers.
    let refused: [(line: Int, reason: String)]

    /// Longest accepted line, bytes; longer ones are reported and skipped before being split.
    static let maxLineLength = 64 * 1024
    /// Largest accepted file, bytes.
    static let maxFileSize = 1 << 30

    /// Reads `path`.
    ///
    /// - Throws: `DriveError` if the file cannot be read, is too large or has no header.
    init(path: String) throws(DriveError) {
        switch FileBytes.read(path: path, limit: CSVTable.maxFileSize) {
        case .success(let data): try self.init(data: data, path: path)
        case .failure(let failure): throw .unreadable(path: path, reason: failure.description)
        }
    }

    /// Parses a file held in memory; `path` names it in errors.
    ///
    /// - Throws: `DriveError` if the bytes are too many, not UTF-8 or hold no header.
    package init(data: Data, path: String) throws(DriveError) {
        guard data.count <= CSVTable.maxFileSize else {
            throw .unreadable(path: path, reason: "\(data.count) bytes exceeds the \(CSVTable.maxFileSize)-byte limit")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .unreadable(path: path, reason: "not UTF-8") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().makeIterator()
        guard let (_, header) = lines.next(), !header.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .unreadable(path: path, reason: "no header row")
        }
        var columns: [String: Int] = [:]
        for (i, name) in header.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            columns[name.trimmingCharacters(in: .whitespacesAndNewlines)] = i
        }
        var rows: [(Int, [Substring])] = [], refused: [(Int, String)] = []
        while let (index, line) = lines.next() {
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            guard !trimmed.isEmpty else { continue }
            guard trimmed.utf8.count <= CSVTable.maxLineLength else {
                refused.append((index + 1, "line longer than \(CSVTable.maxLineLength) bytes"))
                continue
            }
            rows.append((index + 1, trimmed.split(separator: ",", omittingEmptySubsequences: false)))
        }
        self.columns = columns
        self.rows = rows
        self.refused = refused
    }

    /// The refused lines as skipped rows of `path`.
    func skippedRows(in path: String) -> [SkippedRow] {
        refused.map { SkippedRow(path: path, line: $0.line, reason: $0.reason) }
    }

    /// Index of a required column.
    func column(_ name: String, in path: String) throws(DriveError) -> Int {
        guard let index = columns[name] else { throw .missingColumn(path: path, column: name) }
        return index
    }
}
