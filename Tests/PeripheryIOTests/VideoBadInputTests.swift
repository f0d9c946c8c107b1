import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryIO

/// Bad video input: each an error naming the file; a video cut short keeps every frame decoded
/// before the cut.
struct VideoBadInputTests {
    private func expectUnreadable(_ path: String, _ reason: String) {
        #expect {
            _ = try VideoFrameSource(path: path)
        } throws: { error in
            guard case .unreadable(let named, let message) = error as? VideoError else { return false }
            return named == path && message.contains(reason) && "\(error)".hasPrefix(path)
        }
    }

    @Test func notAVideo() throws {
        let folder = try scratchFolder("video-not")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("this is text, not a video\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes.mp4"))
        expectUnreadable(folder + "/notes.mp4", "not a readable video")
        expectUnreadable(folder + "/missing.mp4", "not a readable video")
    }

    @Test func noVideoTrack() throws {
        let folder = try scratchFolder("video-audio")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try VideoTestClips.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", folder + "/tone.m4a"])
        expectUnreadable(folder + "/tone.m4a", "no video track")
    }

    @Test func unsupportedCodec() throws {
        let folder = try scratchFolder("video-codec")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/clip.mkv"
        try VideoTestClips.make(path, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        // The track's codec id renamed (same length) to one no decoder knows.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let id = Array("V_MPEG4/ISO/AVC".utf8)
        guard let at = (0..<bytes.count - id.count).first(where: { Array(bytes[$0..<$0 + id.count]) == id }) else {
            Issue.record("no H.264 codec id in the Matroska header")
            return
        }
        bytes.replaceSubrange(at..<at + id.count, with: Array("V_QQQQQ/ISO/AVC".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        expectUnreadable(path, "unsupported video codec")
    }

    @Test func zeroFrames() throws {
        let folder = try scratchFolder("video-empty")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/empty.mkv"
        try VideoTestClips.make(path, frames: 0, codec: ["-c:v", "mjpeg"])
        #expect {
            var source = try VideoFrameSource(path: path)
            _ = try source.next()
        } throws: { error in
            "\(error)".hasPrefix(path)
        }
    }

    /// A clip cut at half its size: an MP4 with its index first, and a Matroska file.
    @Test(arguments: ["clip.mp4", "clip.mkv"])
    func truncatedKeepsTheFramesBeforeTheCut(_ name: String) throws {
        let folder = try scratchFolder("video-cut")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + name
        try VideoTestClips.make(
            path, frames: 40, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "5"], extra: ["-movflags", "+faststart"])
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        var source = try VideoFrameSource(path: path)
        var delivered = 0
        #expect {
            while try source.next() != nil { delivered += 1 }
        } throws: { error in
            guard case .incomplete(let named, let frames, _) = error as? VideoError else { return false }
            return named == path && frames == delivered
        }
        #expect(delivered > 5 && delivered < 40, "\(delivered) frames before the cut")
    }
}
