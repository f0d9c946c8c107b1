import CPeriphery
import Foundation
import PeripheryCore
import PeripheryIO
import PeripheryInference
import PeripheryRun

/// What a `periphery_source *` points at: a `PerceptionSession` running an opened `FrameInput` on a
/// thread of its own into a `ResultChannel`, so that the caller steps through the results that
/// `periphery run` would write, frame by frame.
final class SourceHandle {
    let engine: EngineHandle
    /// What the input and the session had to say, for `periphery_source_warning`.
    let warnings = WarningList()
    private let channel = ResultChannel()
    private let stop = StopRequest()
    private let finished = DispatchSemaphore(value: 0)

    /// Opens `input` (already classified, with its calibration) and starts the session.
    init(engine: EngineHandle, input: FrameInput, options: PerceptionSession.Options) throws {
        self.engine = engine
        let perception = try engine.available()
        let warnings = warnings
        let opened = try input.open(for: perception, stop: stop, report: { warnings.append($0) })
        var options = options
        options.duration = opened.wallClockLimit
        let session = PerceptionSession(
            engine: perception, setup: input.setup, outputs: [ChannelOutput(channel: channel)], options: options, stop: stop)
        session.onWarning = { warnings.append($0) }
        engine.busy = true
        perception.reset()
        let run = SessionRun(session: session, source: opened.source, channel: channel, finished: finished)
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
