import Foundation
import Periphery

/// One `periphery run`: the library's `PerceptionSession` over a frame source into the sidecar and
/// whatever else was asked for (PNG composites, an H.264 video, a Foxglove MCAP). The session
/// finishes every output however the run ends; this only wires and reports.
struct RunSession {
    let engine: PerceptionEngine
    let weights: Safety40Weights
    let setup: CameraSetup?
    let args: Arguments
    let stop: StopRequest

    /// Runs the engine over `source` into OUT; `fps` is the nominal rate of a rendered video,
    /// `expected` the frame count for the progress line and `duration` a wall-clock limit.
    func run(
        _ source: inout some FrameSource, out: String, fps: Double, expected: Int? = nil, duration: Double? = nil,
        ego: (any LiveEgoSource)? = nil
    ) throws -> Int32 {
        let render = args.flag("render")
        var options = PerceptionSession.Options()
        options.maxFrames = Int(try args.number("max-frames", default: Double(Int32.max), in: 1...Double(Int32.max)))
        options.duration = duration
        options.keepCorrupt = args.flag("keep-corrupt")
        // The server first: an address that cannot be bound then leaves no file half-made.
        let server = try liveView()
        try FileManager.default.createDirectory(atPath: render ? out + "/render" : out, withIntermediateDirectories: true)
        let sidecar = try ReplaySidecar(
            path: out + "/" + ReplaySidecar.fileName, checkpoint: weights.provenance.origin ?? "unknown",
            scoreThreshold: engine.settings.scoreThreshold, rejectImplausible: engine.settings.rejectImplausible)
        var outputs: [any PerceptionOutput] = [SidecarOutput(sidecar)]
        if let path = args.value("mcap") { outputs.append(try RecordingOutput(path: path)) }
        if let server { outputs.append(server) }
        if render || args.value("render-video") != nil {
            outputs.append(
                CompositeOutput(
                    pictures: render ? out + "/render" : nil, video: args.value("render-video"), fps: fps,
                    caption: weights.provenance.caption))
        }
        let session = PerceptionSession(engine: engine, setup: setup, outputs: outputs, options: options, stop: stop, ego: ego)
        let progress = ProgressLine(total: (source.count ?? expected).map { min($0, options.maxFrames) }, forced: args.flag("progress"))
        session.onFrame = { _ in progress.advance() }
        session.onWarning = { printError("warning: \($0)") }
        let summary: RunSummary
        do {
            summary = try session.run(&source)
        } catch {
            progress.finish()
            if case .input(let processed, _) = error { throw IncompleteInput(error, processed: processed) }
            throw error
        }
        progress.finish()
        printError("summary: \(summary.report)")
        printError(
            String(
                format: "%d frames in %.1f s (%.2f frames/s)%@, %d tracks born; wrote %@/%@",
                summary.processed, summary.seconds, Double(summary.processed) / max(summary.seconds, 1e-9), render ? " with rendering" : "",
                engine.counters.births, out, ReplaySidecar.fileName))
        if let window = engine.mountCalibrator?.window {
            let pitch = window.pitch.map { String(format: "%+.3f°", $0 * 180 / .pi) } ?? "—"
            printError("auto pitch: \(pitch) from \(window.samples) pairs, " + (window.isConverged ? "converged and applied" : "not converged, not applied"))
        }
        if weights.provenance.training == .untrained { printError("note: untrained test weights - the tracks are not real vehicles") }
        return 0
    }
}

extension RunSession {
    /// `--serve`: the live view server, started and announced before the first frame.
    func liveView() throws -> LiveViewServer? {
        guard let value = args.value("serve") else {
            if args.value("token") != nil || args.value("view-fps") != nil { throw CLIError("--token and --view-fps need --serve") }
            return nil
        }
        var options = LiveViewServer.Options()
        options.address = try ServeAddress(parsing: value)
        options.token = args.value("token")
        options.viewFPS = try args.number("view-fps", default: 15, in: 0.1...120)
        options.metadata = [
            "weights": weights.provenance.training.rawValue,
            "provenance": weights.provenance.origin ?? "unknown",
        ]
        let server = try LiveViewServer(options: options)
        server.onLog = { printError($0) }
        printError("live view: \(server.pageURL) (Foxglove: \(server.foxgloveURL))")
        return server
    }
}

/// The input stopped part-way; what came before was processed and written (exit status 3).
struct IncompleteInput: Error, CustomStringConvertible {
    let underlying: any Error
    let processed: Int
    init(_ underlying: any Error, processed: Int) { (self.underlying, self.processed) = (underlying, processed) }
    var description: String {
        "\(underlying) (input failed: \(processed) frames before it were processed and written, every output finished)"
    }
}
