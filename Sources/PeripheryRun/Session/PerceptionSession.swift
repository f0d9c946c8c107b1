import Dispatch
import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO
import PeripheryInference

/// `PerceptionEngine` over any frame source into any set of outputs: what `periphery run` does
/// with a drive, a video, raw frames, a camera or a stream.
///
/// The session owns the run's rules:
/// - **Real time.** A live source hands over its newest frame only; the rest count as dropped.
/// - **Damaged frames** are skipped and counted, unless `keepCorrupt` (then marked in their line).
/// - **Stops.** `stop` (a signal handler, the library's user), `maxFrames` and `duration` end the
///   run after the frame in flight.
/// - **Every output is finished**, with the summary, however the run ends: the end of the input,
///   a stop, or a failure of the input, the engine or an output.
///
/// A frame's camera is its own (`frames.csv`) or else `setup`'s; the mount is `setup`'s or the
/// reference fallback. Ego motion is the frame's own (motion tables), else the `ego` source's
/// (gpsd), else the stationary rule (`EgoDelta(dt:)`): tracks are kept but their velocities then
/// include the ego's own. After a gap in a live source the tracker starts afresh.
public final class PerceptionSession {
    /// When a run ends early, and what it keeps.
    public struct Options: Sendable {
        /// Stop after this many processed frames.
        public var maxFrames = Int.max
        /// Stop after this many wall-clock seconds (live sources).
        public var duration: Double?
        /// Process damaged frames (marked in their line) instead of skipping them.
        public var keepCorrupt = false

        /// Run to the end of the input, skipping damaged frames.
        public init() {}
    }

    /// The engine the frames go through.
    public let engine: PerceptionEngine
    /// The camera and mount of frames that carry none.
    public let setup: CameraSetup?
    /// Where results go.
    public let outputs: [any PerceptionOutput]
    /// Limits and rules of the run.
    public let options: Options
    /// Asks the run to stop after the frame in flight.
    public let stop: StopRequest
    /// Ego motion by arrival time, for frames that bring none.
    public let ego: (any LiveEgoSource)?
    /// Sees each processed frame after the outputs (progress lines, a caller's own use).
    public var onFrame: (ProcessedFrame) -> Void = { _ in }
    /// Sees a warning: an output that could not be finished, a lost GPS fix.
    public var onWarning: (String) -> Void = { _ in }

    /// A session of `engine` into `outputs`.
    public init(
        engine: PerceptionEngine, setup: CameraSetup?, outputs: [any PerceptionOutput], options: Options = Options(),
        stop: StopRequest = StopRequest(), ego: (any LiveEgoSource)? = nil
    ) {
        (self.engine, self.setup, self.outputs, self.options, self.stop, self.ego) = (engine, setup, outputs, options, stop, ego)
    }

    /// Runs `source` to its end, a stop or a failure, and finishes every output.
    ///
    /// - Returns: the summary, also the sidecar's last line.
    /// - Throws: `PerceptionSessionError` after finishing the outputs: `.input` when the source
    ///   failed (its summary says how far it got), `.frame`/`.noIntrinsics` for a frame the engine
    ///   refused, `.output` when writing failed.
    @discardableResult
    public func run(_ source: inout some FrameSource) throws(PerceptionSessionError) -> RunSummary {
        var state = RunState(started: MonotonicClock.now)
        let timer = options.duration.map { seconds in
            let item = DispatchWorkItem { [stop] in stop.request(.duration) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
            return item
        }
        defer { timer?.cancel() }
        var failure: PerceptionSessionError?
        do throws(PerceptionSessionError) {
            try loop(&source, &state)
        } catch {
            failure = error
        }
        var summary = state.summary(ended: ending(of: failure))
        summary.dropped += source.undelivered
        // Every decoded frame was processed, dropped or skipped as damaged.
        summary.received = summary.processed + summary.dropped + summary.corrupt
        summary.reconnects = source.reconnects
        summary.egoReportsSkipped = ego?.skippedReports ?? 0
        for output in outputs {
            do { try output.finish(summary) } catch {
                if failure == nil { failure = .output(error) } else { onWarning("an output could not be finished: \(error)") }
            }
        }
        if let failure { throw failure }
        return summary
    }

    private func loop(_ source: inout some FrameSource, _ state: inout RunState) throws(PerceptionSessionError) {
        while !stop.isRequested {
            if state.processed >= options.maxFrames { return stop.request(.stopped) }
            let frame: SourceFrame
            do {
                guard let next = try source.next() else { return }
                frame = next
            } catch {
                throw .input(processed: state.processed, underlying: error)
            }
            let taken = MonotonicClock.now
            let arrival = frame.arrival ?? taken
            state.dropped += frame.dropped
            if frame.corrupt {
                guard options.keepCorrupt else {
                    state.corrupt += 1
                    continue
                }
                state.corruptKept += 1
            }
            let ego = egoMotion(for: frame, arrival: arrival, state: &state)
            let result = try process(frame, ego: ego)
            let done = MonotonicClock.now
            state.recent.append(done)
            state.recent.removeAll { done - $0 > RunState.rateWindow }
            state.ages.add((taken - arrival) * 1000)
            state.latencies.add((done - arrival) * 1000)
            let processed = ProcessedFrame(
                frame: frame, result: result, ego: ego, index: state.processed,
                live: ReplaySidecar.LiveFields(
                    arrival: arrival, latencyMs: (done - arrival) * 1000, dropped: frame.dropped, corrupt: frame.corrupt, gap: frame.gap,
                    trackerReset: result.trackerReset && state.processed > 0),
                progress: state.progress)
            do {
                for output in outputs { try output.write(processed) }
            } catch {
                throw .output(error)
            }
            state.previous = (frame.timestamp, arrival)
            state.processed += 1
            state.finished = MonotonicClock.now
            onFrame(processed)
        }
    }

    /// The frame's own motion, else the live ego source's, else the stationary rule; none after a gap,
    /// so that the tracker starts afresh.
    private func egoMotion(for frame: SourceFrame, arrival: Double, state: inout RunState) -> EgoDelta? {
        if frame.gap != nil { return nil }
        if let own = frame.ego { return own }
        guard let previous = state.previous else { return nil }
        if let ego {
            if let delta = ego.egoDelta(from: previous.arrival, to: arrival), delta.valid, delta.dt > 0 {
                state.egoFallbackRun = false
                // Re-timed to the frames' own interval, which the tracker checks ego.dt against: the
                // same speed and turn rate over the stream clock's interval.
                return EgoDelta.arc(speed: Self.arcSpeed(of: delta), yawRate: delta.dyaw / delta.dt, dt: frame.timestamp - previous.pts)
            }
            state.egoFallbacks += 1
            if !state.egoFallbackRun { onWarning("\(frame.name): no GPS fix; the ego is taken as stationary until one returns") }
            state.egoFallbackRun = true
        }
        return EgoDelta(dt: frame.timestamp - previous.pts)
    }

    /// The speed along the arc that `delta` drove (its chord over its time, lengthened to the arc).
    private static func arcSpeed(of delta: EgoDelta) -> Double {
        let chord = (delta.dx * delta.dx + delta.dy * delta.dy).squareRoot(), half = delta.dyaw / 2
        return (abs(half) < 1e-9 ? chord : chord * half / sin(half)) / delta.dt
    }

    private func process(_ frame: SourceFrame, ego: EgoDelta?) throws(PerceptionSessionError) -> PerceptionResult {
        guard let intrinsics = frame.intrinsics ?? setup?.intrinsics else { throw .noIntrinsics(frame: frame.name) }
        do {
            return try engine.process(
                PerceptionFrame(
                    pixels: try FramePixels(frame.image), timestamp: frame.timestamp, intrinsics: intrinsics,
                    pose: setup?.pose ?? .fallback, ego: ego, motion: frame.motion))
        } catch {
            throw .frame(name: frame.name, underlying: error)
        }
    }

    private func ending(of failure: PerceptionSessionError?) -> RunSummary.Ending {
        switch failure {
        case .input(_, let underlying)?:
            if case VideoError.timedOut = underlying { return .timeout }
            return .inputFailed
        case .some:
            return .inputFailed
        case nil:
            switch stop.reason {
            case .duration?: return .duration
            case .stopped?: return .stopped
            case nil: return .endOfInput
            }
        }
    }
}

/// What a run has counted so far.
private struct RunState {
    let started: Double
    var finished: Double?
    var processed = 0, dropped = 0, corrupt = 0, corruptKept = 0, egoFallbacks = 0
    var egoFallbackRun = false
    var previous: (pts: Double, arrival: Double)?
    var latencies = LatencyHistogram(), ages = LatencyHistogram()
    /// When the frames of the last `rateWindow` seconds were done, for the recent rate.
    var recent: [Double] = []
    static let rateWindow = 2.0

    init(started: Double) { self.started = started }

    /// The counts with the frame being handed out (not yet in `processed`) included.
    var progress: RunProgress {
        let span = (recent.last ?? 0) - (recent.first ?? 0)
        let rate = recent.count > 1 && span > 0 ? Double(recent.count - 1) / span : 0
        return RunProgress(processed: processed + 1, dropped: dropped, corrupt: corrupt, framesPerSecond: rate)
    }

    func summary(ended: RunSummary.Ending) -> RunSummary {
        var summary = RunSummary()
        (summary.processed, summary.dropped, summary.corrupt) = (processed, dropped, corrupt)
        summary.corruptKept = corruptKept
        summary.latencyMs = latencies.spread
        summary.ageMs = ages.spread
        summary.egoFallbacks = egoFallbacks
        summary.ended = ended
        summary.seconds = (finished ?? MonotonicClock.now) - started
        return summary
    }
}
