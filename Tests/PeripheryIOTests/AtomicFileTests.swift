import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryIO

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

    /// The sidecar once removed whatever was at its path and then moved its file there: a folder in
    /// the way was deleted with its contents. A rename refuses, and the folder stays.
    @Test func sidecarNeverRemovesWhatIsInItsWay() throws {
        let folder = try scratchFolder("atomic-sidecar")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + ReplaySidecar.fileName
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path + "/inside.txt"))
        let sidecar = try ReplaySidecar(path: path, checkpoint: "test", scoreThreshold: 0.6, rejectImplausible: true)
        #expect(throws: OutputWriteError.self) { try sidecar.finish() }
        #expect(try String(contentsOfFile: path + "/inside.txt", encoding: .utf8) == "keep")
    }

    @Test func sidecarReplacesAnOlderOne() throws {
        let folder = try scratchFolder("atomic-sidecar-replace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + ReplaySidecar.fileName
        try Data("old sidecar\n".utf8).write(to: URL(fileURLWithPath: path))
        let sidecar = try ReplaySidecar(path: path, checkpoint: "test", scoreThreshold: 0.6, rejectImplausible: true)
        try sidecar.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("{\"schema\":1,\"kind\":\"periphery-replay\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [ReplaySidecar.fileName])
    }
}
