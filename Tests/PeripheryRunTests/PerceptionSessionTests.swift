import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryTestSupport
import Testing

@testable import PeripheryIO
@testable import PeripheryInference
@testable import PeripheryRun

/// The session's rules over a scripted source: every frame accounted for, damaged frames skipped
/// (or kept and marked), stops after the frame in flight, and every output finished exactly once
/// whichever way the run ends. The reference is the script itself: what it delivered, dropped and
/// flagged.
@Suite(.serialized) struct PerceptionSessionTests {
    /// A source that plays a script: frames (with drops and damage flags), then an end or an error.
    struct ScriptedSource: FrameSource {
        var frames: [SourceFrame]
        var failure: (any Error)?
        var live = false
        var leftOver = 0
        var onNext: () -> Void = {}
        var count: Int? { nil }
        var isLive: Bool { live }
        var undelivered: Int { leftOver }

        mutating func next() throws -> SourceFrame? {
            onNext()
            if !frames.isEmpty { return frames.removeFirst() }
            if let failure { throw failure }
            return nil
        }
    }

    /// Counts what the session hands it.
    final class CountingOutput: PerceptionOutput {
        var written: [ProcessedFrame] = []
        var finished: [RunSummary] = []
        func write(_ processed: ProcessedFrame) throws { written.append(processed) }
        func finish(_ summary: RunSummary) throws { finished.append(summary) }
    }

    struct Lost: Error {}

    let engine: PerceptionEngine
    let image: RGBImage
    let setup: CameraSetup

    init() throws {
        engine = try PerceptionEngine(
            weights: try Safety40Weights(path: repositoryPath("Weights/safety40-random-init.safetensors")), threads: 2)
        image = try ImageFile.read(path: repositoryPath("docs/sample/frame.png"))
        setup = try CalibrationFile.load(path: repositoryPath("docs/sample/calibration.json"))
    }

    func frame(_ i: Int, dropped: Int = 0, corrupt: Bool = false, gap: Double? = nil) -> SourceFrame {
        var frame = SourceFrame(name: "frame \(i)", image: image, timestamp: Double(i) * 0.1)
        (frame.dropped, frame.corrupt, frame.gap) = (dropped, corrupt, gap)
        frame.arrival = MonotonicClock.now
        return frame
    }

    @Test func accountsForEveryFrameAndSkipsDamagedOnes() throws {
        var source = ScriptedSource(frames: [frame(0), frame(3, dropped: 2), frame(4, corrupt: true), frame(6, dropped: 1)], live: true, leftOver: 2)
        let output = CountingOutput()
        let summary = try PerceptionSession(engine: engine, setup: setup, outputs: [output]).run(&source)
        #expect(summary.processed == 3 && summary.corrupt == 1 && summary.dropped == 2 + 1 + 2)
        #expect(summary.received == 9, "7 frames delivered or dropped before, 2 left undelivered")
        #expect(summary.received == summary.processed + summary.dropped + summary.corrupt)
        #expect(summary.ended == .endOfInput && output.finished == [summary])
        #expect(output.written.map(\.frame.name) == ["frame 0", "frame 3", "frame 6"])
        #expect(output.written.map(\.live.dropped) == [0, 2, 1])
        #expect(output.written.allSatisfy { $0.live.latencyMs >= 0 && !$0.live.corrupt })
        #expect(summary.latencyMs.map { $0.p50 <= $0.p95 && $0.p95 <= $0.max } == true)
    }

    @Test func keepsDamagedFramesWhenAskedAndMarksThem() throws {
        var source = ScriptedSource(frames: [frame(0), frame(1, corrupt: true)])
        var options = PerceptionSession.Options()
        options.keepCorrupt = true
        let output = CountingOutput()
        let summary = try PerceptionSession(engine: engine, setup: setup, outputs: [output], options: options).run(&source)
        #expect(summary.processed == 2 && summary.corrupt == 0 && summary.corruptKept == 1 && summary.received == 2)
        #expect(output.written.map(\.live.corrupt) == [false, true])
    }

    @Test func aGapRestartsTheTrackerAndIsRecorded() throws {
        var source = ScriptedSource(frames: [frame(0), frame(1), frame(40, gap: 3.2), frame(41)])
        let output = CountingOutput()
        try PerceptionSession(engine: engine, setup: setup, outputs: [output]).run(&source)
        #expect(output.written.map { $0.ego == nil } == [true, false, true, false])
        #expect(output.written.map(\.live.trackerReset) == [false, false, true, false])
        #expect(output.written[2].live.gap == 3.2)
    }

    @Test func stopsAfterTheFrameInFlightAndAtMaxFrames() throws {
        let stop = StopRequest()
        var calls = 0
        var source = ScriptedSource(frames: (0..<10).map { frame($0) })
        source.onNext = {
            calls += 1
            if calls == 4 { stop.request() }
        }
        let output = CountingOutput()
        let stopped = try PerceptionSession(engine: engine, setup: setup, outputs: [output], stop: stop).run(&source)
        #expect(stopped.processed == 4 && stopped.ended == .stopped && output.finished.count == 1)

        var options = PerceptionSession.Options()
        options.maxFrames = 3
        var rest = ScriptedSource(frames: (0..<10).map { frame($0) })
        let limited = try PerceptionSession(engine: engine, setup: setup, outputs: [CountingOutput()], options: options).run(&rest)
        #expect(limited.processed == 3 && limited.ended == .stopped)
    }

    @Test func aFailingInputStillFinishesEveryOutput() throws {
        var source = ScriptedSource(frames: [frame(0), frame(1)], failure: Lost())
        let outputs = [CountingOutput(), CountingOutput()]
        #expect {
            try PerceptionSession(engine: engine, setup: setup, outputs: outputs).run(&source)
        } throws: { error in
            guard case .input(let processed, let underlying) = error as? PerceptionSessionError else { return false }
            return processed == 2 && underlying is Lost
        }
        for output in outputs {
            #expect(output.written.count == 2 && output.finished.count == 1)
            #expect(output.finished.first?.ended == .inputFailed && output.finished.first?.processed == 2)
        }
    }

    @Test func aTimedOutStreamEndsAsTimeout() throws {
        var source = ScriptedSource(frames: [frame(0)], failure: VideoError.timedOut(path: "udp://127.0.0.1:9", seconds: 10, reason: "x"))
        let output = CountingOutput()
        #expect(throws: PerceptionSessionError.self) { try PerceptionSession(engine: engine, setup: setup, outputs: [output]).run(&source) }
        #expect(output.finished.first?.ended == .timeout)
    }

    @Test func theSidecarEndsWithTheSummary() throws {
        let folder = try scratchFolder("session-sidecar")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/replay.jsonl"
        var source = ScriptedSource(frames: [frame(0), frame(2, dropped: 1), frame(3, gap: 1.5)])
        let sidecar = try ReplaySidecar(path: path, checkpoint: "test", scoreThreshold: 0.5, rejectImplausible: true)
        let summary = try PerceptionSession(engine: engine, setup: setup, outputs: [SidecarOutput(sidecar)]).run(&source)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.count == 1 + 3 + 1)
        #expect(lines[1..<4].map { $0["dropped"] as? Int } == [0, 1, 0])
        #expect(lines[1..<4].allSatisfy { ($0["arrival"] as? Double) != nil && ($0["latency_ms"] as? Double) != nil })
        #expect(lines[3]["gap_s"] as? Double == 1.5 && lines[3]["tracker_reset"] as? Bool == true)
        let last = try #require(lines.last?["summary"] as? [String: Any])
        #expect(last["processed"] as? Int == 3 && last["dropped"] as? Int == 1 && last["received"] as? Int == 4)
        #expect(last["ended"] as? String == "end-of-input" && summary.processed == 3)
        let latency = try #require(last["latency_ms"] as? [String: Double])
        #expect(Set(latency.keys) == ["p50", "p95", "max"])
    }
}

/// The session's fixed-memory percentiles against the nearest-rank definition on sorted values.
struct LatencyHistogramTests {
    @Test func percentilesMatchNearestRankToTheBin() throws {
        var histogram = LatencyHistogram()
        // 2,000 values spread over 0–400 ms in a scrambled order, and one past the 60 s limit.
        let values = (0..<2_000).map { Double(($0 * 7_919) % 4_001) / 10 + 0.037 } + [70_000]
        for value in values { histogram.add(value) }
        let exact = try #require(RunSummary.Spread(values))
        let binned = try #require(histogram.spread)
        #expect(abs(binned.p50 - exact.p50) <= 0.1 && abs(binned.p95 - exact.p95) <= 0.1, "\(binned) against \(exact)")
        #expect(binned.max == 70_000 && LatencyHistogram().spread == nil)
    }
}
