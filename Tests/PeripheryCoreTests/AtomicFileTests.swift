import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore

/// `AtomicFile` is the package's one way of replacing a file; the replay sidecar, PNGs and every
/// other output go through it.
struct AtomicFileTests {
    /// A scratch folder holding `out.txt` with "old"; returns the folder and the file's path.
    private func folderWithOldFile(_ name: String) throws -> (folder: String, path: String) {
        let folder = try scratchFolder(name)
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder + "/out.txt"))
        return (folder, folder + "/out.txt")
    }

    @Test func appendedBytesAppearOnlyAtCommit() throws {
        let (folder, path) = try folderWithOldFile("atomic-commit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try AtomicFile(path: path)
        try file.append(Data("new ".utf8))
        try file.append(Data("bytes".utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        try file.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new bytes")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.txt"])
    }

    @Test func discardLeavesTheOldFile() throws {
        let (folder, path) = try folderWithOldFile("atomic-discard")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try AtomicFile(path: path)
        try file.append(Data("half".utf8))
        file.discard()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.txt"])
    }

    @Test func aDroppedWriterKeepsWhatItWroteUnderItsTemporaryName() throws {
        let folder = try scratchFolder("atomic-dropped")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let file = try AtomicFile(path: folder + "/out.jsonl", temporary: folder + "/out.jsonl.partial")
            try file.append(Data("frame 0\n".utf8))
        }
        #expect(try String(contentsOfFile: folder + "/out.jsonl.partial", encoding: .utf8) == "frame 0\n")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.jsonl"))
    }
}
