import Foundation
import PeripheryCore
import PeripheryTestSupport
import Testing

@testable import PeripheryIO

/// The replay sidecar replaces its file through `AtomicFile`: never by removing what is in the way.
struct ReplaySidecarFileTests {
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
