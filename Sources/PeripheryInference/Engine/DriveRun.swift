import Dispatch
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// `PerceptionEngine` over a frame source, one replay-sidecar line per frame: what `periphery run`
/// does with a drive directory or a raw stream.
///
/// A frame's camera is its own (`frames.csv`) or else `setup`'s; the mount is `setup`'s or the
/// reference fallback. A frame without recorded ego motion is taken as stationary over its interval
/// (`EgoDelta(dt:)`), so tracks are kept but their velocities include the ego's own. When a frame
/// fails, the frames before it stay in the sidecar, which is finished before the error is thrown.
public struct DriveRun {
    /// What a run did.
    public struct Summary: Sendable {
        /// Frames processed.
        public var frames: Int
        /// Wall-clock time, seconds.
        public var seconds: Double
    }

    /// The engine the frames go through.
    public let engine: PerceptionEngine
    /// The camera and mount of frames that carry none.
    public let setup: CameraSetup?

    /// A run of `engine`, with `setup` for frames that carry no camera of their own.
    public init(engine: PerceptionEngine, setup: CameraSetup?) {
        self.engine = engine
        self.setup = setup
    }

    /// Runs at most `maxFrames` frames of `source` into `sidecar` and finishes it; `onFrame` sees
    /// each frame with its result and ego motion after its line is written.
    ///
    /// - Throws: `DriveRunError` naming the frame that failed, or the sidecar's write error.
    public func run(
        _ source: inout some FrameSource, into sidecar: inout ReplaySidecar, maxFrames: Int = .max,
        onFrame: (SourceFrame, PerceptionResult, EgoDelta?) throws -> Void = { _, _, _ in }
    ) throws -> Summary {
        let start = DispatchTime.now().uptimeNanoseconds
        var processed = 0, previous: Double?
        do {
            while processed < maxFrames, let frame = try next(&source, after: processed) {
                let ego = frame.ego ?? previous.map { EgoDelta(dt: frame.timestamp - $0) }
                let result = try process(frame, ego: ego)
                try sidecar.append(pts: frame.timestamp, ego: ego ?? EgoDelta(dt: 0, valid: false), result: result)
                try onFrame(frame, result, ego)
                previous = frame.timestamp
                processed += 1
            }
        } catch {
            try sidecar.finish()
            throw error
        }
        try sidecar.finish()
        return Summary(frames: processed, seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    private func next(_ source: inout some FrameSource, after processed: Int) throws(DriveRunError) -> SourceFrame? {
        do {
            return try source.next()
        } catch {
            throw .source(frame: processed, reason: "\(error)")
        }
    }

    private func process(_ frame: SourceFrame, ego: EgoDelta?) throws(DriveRunError) -> PerceptionResult {
        guard let intrinsics = frame.intrinsics ?? setup?.intrinsics else { throw .noIntrinsics(frame: frame.name) }
        do {
            return try engine.process(PerceptionFrame(
                pixels: try FramePixels(frame.image), timestamp: frame.timestamp, intrinsics: intrinsics,
                pose: setup?.pose ?? .fallback, ego: ego, motion: frame.motion))
        } catch {
            throw .frame(name: frame.name, reason: "\(error)")
        }
    }
}

/// Why a run stopped before the end of its source.
public enum DriveRunError: Error, Equatable, CustomStringConvertible {
    /// The source failed to deliver the frame after `frame` processed ones (`reason` says why).
    case source(frame: Int, reason: String)
    /// The frame has no camera of its own and the run has no calibration.
    case noIntrinsics(frame: String)
    /// The engine refused the frame.
    case frame(name: String, reason: String)

    public var description: String {
        switch self {
        case let .source(_, reason): reason
        case let .noIntrinsics(frame): "\(frame): no intrinsics in frames.csv and no calibration"
        case let .frame(name, reason): "\(name): \(reason)"
        }
    }
}
