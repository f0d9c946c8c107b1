import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryIO

/// The video reader against FFmpeg's own tools: the same frames, in the same order, at the same
/// times, with the same pixels (to the rounding of two rgb24 conversions); and every bad input an
/// error that names the file, keeping the frames decoded before it.
struct VideoFrameSourceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var file: String
        var codec: [String]
        var size = "96x64"
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "H.264 in MP4", file: "clip.mp4", codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p"]),
        Case(name: "H.265 in MP4", file: "clip.mp4", codec: ["-c:v", "libx265", "-pix_fmt", "yuv420p", "-x265-params", "log-level=none"]),
        Case(name: "MJPEG in AVI", file: "clip.avi", codec: ["-c:v", "mjpeg", "-q:v", "3"]),
        Case(name: "VP9 in Matroska", file: "clip.mkv", codec: ["-c:v", "libvpx-vp9", "-crf", "30", "-b:v", "0"]),
        Case(
            name: "H.264 4:4:4 in MOV, odd size", file: "clip.mov", codec: ["-vf", "scale=95:63", "-c:v", "libx264", "-pix_fmt", "yuv444p"],
            size: "95x63"),
    ]

    /// Reads every frame of `source`.
    private func frames(_ source: inout VideoFrameSource) throws -> [SourceFrame] {
        var frames: [SourceFrame] = []
        while let frame = try source.next() { frames.append(frame) }
        return frames
    }

    @Test(arguments: cases)
    func deliversFFmpegsFramesTimesAndPixels(_ clip: Case) throws {
        let folder = try scratchFolder("video-read")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + clip.file
        try VideoTestClips.make(path, size: clip.size, codec: clip.codec)
        var source = try VideoFrameSource(path: path)
        let size = clip.size.split(separator: "x").compactMap { Int($0) }
        #expect([source.info.width, source.info.height] == size)
        let decoded = try frames(&source)
        let times = try VideoTestClips.frameTimes(path)
        #expect(decoded.count == 12 && times.count == 12)
        for (frame, time) in zip(decoded, times) { #expect(abs(frame.timestamp - time) < 1e-6, "\(frame.name)") }
        #expect(decoded.map(\.name).last == path + " frame 11")
        // Pixels: FFmpeg's own rgb24 decode with the reader's conversion flags (bilinear chroma; at
        // this pattern's sharp colour edges FFmpeg's default bicubic differs by up to 179 levels).
        let reference = try VideoTestClips.rgbFrames(path)
        let ours = decoded.flatMap(\.image.pixels)
        #expect(reference.count == ours.count)
        let differences = zip(ours, reference).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(max(1, differences.count))
        #expect(mean < 0.05 && differences.max() ?? 0 <= 2, "mean absolute difference \(mean)")
    }

    @Test func variableFrameRateKeepsItsTimestamps() throws {
        let folder = try scratchFolder("video-vfr")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/vfr.mkv"
        // Ten frames 0.1 s apart, then ten 0.3 s apart.
        try VideoTestClips.make(
            path, frames: 20, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p"],
            extra: ["-vf", "setpts='if(lt(N,10),N*0.1,1+(N-10)*0.3)/TB'", "-fps_mode", "passthrough"])
        var source = try VideoFrameSource(path: path)
        let times = try frames(&source).map(\.timestamp)
        let reference = try VideoTestClips.frameTimes(path)
        #expect(times.count == 20 && reference.count == 20)
        for (t, r) in zip(times, reference) { #expect(abs(t - r) < 1e-6) }
        // The intervals really vary: about 0.1 s at first, about 0.3 s later.
        let intervals = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(intervals.prefix(9).allSatisfy { abs($0 - 0.1) < 0.011 } && intervals.suffix(9).allSatisfy { abs($0 - 0.3) < 0.11 })
    }

    @Test func startDurationAndEverySelectFrames() throws {
        let folder = try scratchFolder("video-select")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/clip.mp4"
        try VideoTestClips.make(path, frames: 30, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        var source = try VideoFrameSource(path: path, start: 0.5, duration: 1.5, every: 2)
        let times = try frames(&source).map(\.timestamp)
        // Frames at 0.5 ... 1.9 s, every second one.
        #expect(times.count == 8)
        let expected: [Double] = (0..<8).map { 0.5 + 0.2 * Double($0) }
        for (t, e) in zip(times, expected) { #expect(abs(t - e) < 1e-6) }
        let single = try VideoFrameSource.frame(in: path, index: 7)
        #expect(abs(single.timestamp - 0.7) < 1e-6)
        #expect(abs(try VideoFrameSource.frame(in: path, seconds: 1.25).timestamp - 1.3) < 1e-6)
        #expect(throws: VideoError.self) { try VideoFrameSource.frame(in: path, index: 30) }
    }

    @Test func motionBesideTheVideoGivesEgoMotion() throws {
        let folder = try scratchFolder("video-motion")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try VideoTestClips.make(folder + "/clip.mp4", frames: 5, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        // 12 m/s straight ahead (no rotation, gravity straight down), on the stream's clock.
        let times = (0...10).map { Double($0) * 0.1 }
        try ("t,speed\n" + times.map { "\($0),12.0\n" }.joined()).write(toFile: folder + "/location.csv", atomically: true, encoding: .utf8)
        try ("t,gx,gy,gz,rx,ry,rz\n" + times.map { "\($0),0,0,-1,0,0,0\n" }.joined()).write(
            toFile: folder + "/motion.csv", atomically: true, encoding: .utf8)
        var source = try VideoFrameSource(path: folder + "/clip.mp4")
        let egos = try frames(&source).map(\.ego)
        #expect(egos.first.map { $0 == nil } == true)
        for ego in egos.dropFirst() { #expect(abs((ego?.dx ?? 0) - 1.2) < 1e-6) }
    }

    /// A source given up after one frame stops its decoding thread (this would hang otherwise).
    @Test func releasingTheSourceEarlyStopsItsThread() throws {
        let folder = try scratchFolder("video-release")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try VideoTestClips.make(folder + "/clip.mp4", frames: 30, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        for _ in 0..<3 {
            var source = try VideoFrameSource(path: folder + "/clip.mp4")
            #expect(try source.next() != nil)
        }
    }
}
