import Foundation
import PeripheryCore
import PeripheryTestSupport
import Testing

@testable import PeripheryIO

/// The live hand-over, the source names, the summary's percentiles, and live sources against
/// FFmpeg's own tools: a file played at its own rate delivers its frames with their timestamps, and
/// a stream that never comes is given up after its reconnect timeout with an error naming it.
struct LiveSourceTests {
    func frame(_ t: Double) -> SourceFrame {
        SourceFrame(name: "f\(t)", image: RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 12))!, timestamp: t)
    }

    @Test func theSlotKeepsOnlyTheNewestFrameAndCountsTheRest() {
        let slot = LatestFrameSlot()
        for t in 0..<5 { slot.put(frame(Double(t))) }
        #expect(slot.undelivered == 5)
        guard case .frame(let newest) = slot.take(timeout: 0) else {
            Issue.record("no frame")
            return
        }
        #expect(newest.timestamp == 4 && newest.dropped == 4 && slot.undelivered == 0)
        slot.put(frame(5))
        slot.finish(.end)
        slot.put(frame(6))
        guard case .frame(let after) = slot.take(timeout: 0) else {
            Issue.record("no frame before the end")
            return
        }
        #expect(after.timestamp == 6 && after.dropped == 1, "the end never displaces a frame")
        guard case .ending(.end) = slot.take(timeout: 0) else {
            Issue.record("no end")
            return
        }
        guard case .ending(.end) = slot.take(timeout: 0) else {
            Issue.record("the end is not kept")
            return
        }
    }

    @Test func anEmptySlotTimesOut() {
        let slot = LatestFrameSlot()
        guard case .nothing = slot.take(timeout: 0.01) else {
            Issue.record("expected nothing")
            return
        }
    }

    @Test func sourceKindsAndRedaction() {
        #expect(LiveSourceKind.of("/dev/video0") == .camera)
        #expect(LiveSourceKind.of("/dev/null") == .camera, "a character device")
        #expect(LiveSourceKind.of("udp://127.0.0.1:5000") == .stream && LiveSourceKind.of("RTSP://cam/live") == .stream)
        #expect(LiveSourceKind.of("clip.mp4") == nil && LiveSourceKind.of("file:///tmp/x.mp4") == nil)
        #expect(LiveSourceKind.redacted("rtsp://admin:secret@10.0.0.2/live") == "rtsp://admin:***@10.0.0.2/live")
        #expect(LiveSourceKind.redacted("http://host/a@b") == "http://host/a@b")
        #expect(LiveSourceKind.redacted("rtsp://user@host/x") == "rtsp://user@host/x")
    }

    /// Nearest-rank percentiles, checked against the definition on 1...100.
    @Test func spreadIsNearestRank() throws {
        let spread = try #require(RunSummary.Spread((1...100).reversed().map(Double.init)))
        #expect(spread.p50 == 50 && spread.p95 == 95 && spread.max == 100)
        #expect(RunSummary.Spread([]) == nil)
        #expect(RunSummary.Spread([7])?.p95 == 7)
    }

    @Test func stopRequestKeepsTheFirstReason() {
        let stop = StopRequest()
        #expect(!stop.isRequested && stop.reason == nil)
        stop.request(.duration)
        stop.request(.stopped)
        #expect(stop.isRequested && stop.reason == .duration)
    }

    @Test func optionsThatCannotWorkAreRefusedByName() {
        var options = LiveSourceOptions()
        options.videoSize = "640x"
        #expect(throws: VideoError.invalidOption(path: "/dev/video0", option: "video-size", reason: "'640x' is not WxH")) {
            _ = try LiveFrameSource(source: "/dev/video0", kind: .camera, options: options, width: 64, height: 48)
        }
        options = LiveSourceOptions()
        options.inputFormat = "mjpeg;rm"
        #expect(throws: VideoError.self) { _ = try LiveFrameSource(source: "/dev/video0", kind: .camera, options: options, width: 64, height: 48) }
    }

    /// A clip played at its own rate: every frame, in order, at ffprobe's timestamps, each after
    /// the previous one's time has come (the pacing), with nothing dropped by a prompt reader.
    @Test func aFilePlayedInRealTimeKeepsItsFramesAndTimes() throws {
        let folder = try scratchFolder("live-file")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/clip.mp4"
        try VideoTestClips.make(path, rate: 20, frames: 10, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "0"])
        let source = try LiveFrameSource(source: path, kind: .file, width: 96, height: 64)
        var frames: [SourceFrame] = []
        while let frame = try source.next() { frames.append(frame) }
        let times = try VideoTestClips.frameTimes(path)
        // ffprobe prints 6 decimals.
        #expect(
            frames.count == times.count && zip(frames, times).allSatisfy { abs($0.timestamp - $1) < 1e-6 },
            "\(frames.map(\.timestamp)) against ffprobe's \(times)")
        let arrivals = frames.compactMap(\.arrival)
        #expect(arrivals.count == 10)
        // Paced: the last frame comes at least its time after the first (0.45 s, less 20 ms of slack).
        #expect(arrivals[9] - arrivals[0] >= 0.43, "\(arrivals[9] - arrivals[0]) s")
        #expect(source.received == 10 && frames.allSatisfy { !$0.corrupt })
    }

    /// A stream whose picture size changes part-way: at the same aspect ratio the frames are scaled
    /// to the run's size and keep coming; at another, the error names the frame.
    @Test func aSizeChangeKeepsGoingOnlyAtTheSameAspectRatio() throws {
        let folder = try scratchFolder("live-size")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let codec = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "0", "-f", "mpegts"]
        for (name, size) in [("a", "96x64"), ("b", "192x128"), ("c", "96x96")] {
            try VideoTestClips.make("\(folder)/\(name).ts", size: size, rate: 50, frames: 4, codec: codec)
        }
        func joined(_ names: [String], into path: String) throws {
            let data = try names.reduce(into: Data()) { $0.append(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\($1).ts"))) }
            try data.write(to: URL(fileURLWithPath: path))
        }
        try joined(["a", "b"], into: folder + "/same.ts")
        try joined(["a", "c"], into: folder + "/other.ts")
        let same = try LiveFrameSource(source: folder + "/same.ts", kind: .file, width: 96, height: 64)
        var frames: [SourceFrame] = []
        while let frame = try same.next() { frames.append(frame) }
        #expect(same.received == 8 && frames.allSatisfy { $0.image.width == 96 && $0.image.height == 64 })
        let other = try LiveFrameSource(source: folder + "/other.ts", kind: .file, width: 96, height: 64)
        #expect {
            while try other.next() != nil {}
        } throws: { error in
            guard case .incomplete(let path, _, let reason) = error as? VideoError else { return false }
            return path.hasSuffix("other.ts") && reason.contains("96x96, not the aspect ratio of 96x64")
        }
    }

    /// A UDP stream nobody sends: given up after the reconnect timeout, naming the URL.
    @Test func aSilentStreamTimesOutNamingIt() throws {
        var options = LiveSourceOptions()
        options.readTimeout = 0.3
        options.reconnectTimeout = 0.8
        let source = try LiveFrameSource(source: "udp://127.0.0.1:18931", kind: .stream, options: options, width: 96, height: 64)
        #expect {
            _ = try source.next()
        } throws: { error in
            guard case .timedOut(let path, let seconds, _) = error as? VideoError else { return false }
            return path == "udp://127.0.0.1:18931" && seconds >= 0.8
        }
    }

    /// A stop request ends a wait for a stream that never comes.
    @Test func aStopEndsTheWait() throws {
        let stop = StopRequest()
        let source = try LiveFrameSource(source: "udp://127.0.0.1:18932", kind: .stream, width: 96, height: 64, stop: stop)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { stop.request() }
        #expect(try source.next() == nil)
        source.close()
    }
}
