import CPeriphery
import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO
import PeripheryInference

/// What a `periphery_source *` points at: a `PerceptionSession` running a frame source on a thread
/// of its own into a `ResultChannel`, so that the caller steps through the results that
/// `periphery run` would write, frame by frame.
final class SourceHandle {
    let engine: EngineHandle
    private let channel = ResultChannel()
    private let stop = StopRequest()
    private let finished = DispatchSemaphore(value: 0)

    /// Opens `input` as `periphery run` does (a drive directory, a video file, a camera or a stream
    /// URL, with the calibration.json of the drive or beside the video unless `setup` is given) and
    /// starts the session.
    init(engine: EngineHandle, input: String, setup given: CameraSetup?, fps: Double, maxFrames: Int) throws {
        let live = LiveSourceKind.of(input)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory)
        let isVideo = live == nil && exists && !isDirectory.boolValue
        let folder = isVideo ? URL(fileURLWithPath: input).deletingLastPathComponent().path : input
        let beside = live == nil ? folder + "/calibration.json" : nil
        let setup = try given ?? beside.flatMap { FileManager.default.fileExists(atPath: $0) ? try CalibrationFile.load(path: $0) : nil }
        var options = PerceptionSession.Options()
        options.maxFrames = maxFrames
        let session = PerceptionSession(
            engine: try engine.available(), setup: setup, outputs: [ChannelOutput(channel: channel)], options: options, stop: stop)
        self.engine = engine
        if let live {
            guard let setup else {
                throw BoundaryFailure(status: PERIPHERY_ERROR_CALIBRATION, message: "\(LiveSourceKind.redacted(input)): a live source needs a calibration")
            }
            let source = try LiveFrameSource(source: input, kind: live, width: setup.intrinsics.width, height: setup.intrinsics.height, stop: stop)
            start(session, source)
        } else if isVideo {
            let source = try VideoFrameSource(path: input)
            guard let setup else {
                throw BoundaryFailure(status: PERIPHERY_ERROR_CALIBRATION, message: "\(input): a video needs a calibration (or calibration.json beside it)")
            }
            guard source.info.width == setup.intrinsics.width, source.info.height == setup.intrinsics.height else {
                throw VideoError.mismatch(
                    path: input,
                    reason: "frames are \(source.info.width)x\(source.info.height), the calibration's \(setup.intrinsics.width)x\(setup.intrinsics.height)")
            }
            start(session, source)
        } else {
            start(session, DriveFrameSource(drive: try DriveDirectory(path: input, fps: fps)))
        }
    }

    /// Runs the session on its own thread; the engine is the source's until `close`.
    private func start(_ session: PerceptionSession, _ source: some FrameSource) {
        engine.busy = true
        session.engine.reset()
        let run = SessionRun(session: session, source: source, channel: channel, finished: finished)
        let thread = Thread { run.run() }
        thread.name = "periphery source"
        thread.start()
    }

    /// The next item: a processed frame, a failure (once), or the end.
    func next() -> ResultChannel.Item { channel.take() }

    /// Stops the session after the frame in flight, waits for its thread, and frees the engine.
    func close() {
        stop.request()
        channel.close()
        finished.wait()
        engine.busy = false
    }
}

/// The session and its source, handed to the session's thread.
private final class SessionRun: @unchecked Sendable {
    let session: PerceptionSession
    var source: any FrameSource
    let channel: ResultChannel
    let finished: DispatchSemaphore

    init(session: PerceptionSession, source: any FrameSource, channel: ResultChannel, finished: DispatchSemaphore) {
        (self.session, self.source, self.channel, self.finished) = (session, source, channel, finished)
    }

    func run() {
        defer { finished.signal() }
        do {
            try session.run(&source)
        } catch {
            if case .output = error { return } // the caller destroyed the source
            guard channel.put(.failure(BoundaryFailure(error))) else { return }
        }
        _ = channel.put(.end)
    }
}
