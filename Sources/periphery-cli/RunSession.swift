import Foundation
import Periphery

/// One `periphery run`: the engine over a frame source into the sidecar and whatever else was asked
/// for (PNG composites, an H.264 video, a Foxglove MCAP). Every output is finished even when the
/// input fails part-way, so that the frames processed before the failure are kept.
struct RunSession {
    let engine: PerceptionEngine
    let weights: Safety40Weights
    let setup: CameraSetup?
    let args: Arguments

    init(engine: PerceptionEngine, weights: Safety40Weights, setup: CameraSetup?, args: Arguments) {
        self.engine = engine
        self.weights = weights
        self.setup = setup
        self.args = args
    }

    /// Runs the engine over `source` into OUT; `fps` is the nominal rate of a rendered video and
    /// `expected` the frame count for the progress line.
    func run(_ source: inout some FrameSource, out: String, fps: Double, expected: Int? = nil) throws -> Int32 {
        let render = args.flag("render")
        let maxFrames = Int(try args.number("max-frames", default: Double(Int32.max), in: 1...Double(Int32.max)))
        try FileManager.default.createDirectory(atPath: render ? out + "/render" : out, withIntermediateDirectories: true)
        let untrained = weights.metadata["trained"] == "false"
        var sidecar = try ReplaySidecar(
            path: out + "/" + ReplaySidecar.fileName, checkpoint: weights.metadata["provenance"] ?? "unknown",
            scoreThreshold: engine.settings.scoreThreshold, rejectImplausible: engine.settings.rejectImplausible)
        let recording = try args.value("mcap").map { try FoxgloveRecording(path: $0) }
        let videoPath = args.value("render-video")
        var video: VideoWriter?
        let progress = ProgressLine(total: (source.count ?? expected).map { min($0, maxFrames) }, forced: args.flag("progress"))
        var index = 0
        let summary: DriveRun.Summary
        do {
            summary = try DriveRun(engine: engine, setup: setup).run(&source, into: &sidecar, maxFrames: maxFrames) { frame, result, ego in
                defer { index += 1 }
                try recording?.append(frame: frame, result: result, ego: ego)
                if render || videoPath != nil {
                    let picture = FrameRendering.composite(
                        frame: frame.image, calibration: result.calibration, vehicles: result.tracks, egoSpeed: ego?.speed ?? 0,
                        untrained: untrained)
                    if render { try ImageFile.writePNG(picture, to: String(format: "%@/render/%06d.png", out, index)) }
                    if let videoPath {
                        if video == nil { video = try VideoWriter(path: videoPath, width: picture.width, height: picture.height, fps: fps) }
                        try video?.append(picture, at: frame.timestamp)
                    }
                }
                progress.advance()
            }
        } catch {
            progress.finish()
            // What was processed stays: the sidecar is already finished; finish the others, then
            // report the error that stopped the run.
            do { try recording?.finish() } catch { printError("warning: the MCAP could not be finished: \(error)") }
            do { try video?.finish() } catch { printError("warning: the video could not be finished: \(error)") }
            if case DriveRunError.source = error { throw IncompleteInput(error) }
            throw error
        }
        progress.finish()
        try recording?.finish()
        try video?.finish()
        printError(String(
            format: "%d frames in %.1f s (%.2f frames/s)%@, %d tracks born; wrote %@/%@",
            summary.frames, summary.seconds, Double(summary.frames) / max(summary.seconds, 1e-9), render ? " with rendering" : "",
            engine.counters.births, out, ReplaySidecar.fileName))
        if let window = engine.mountCalibrator?.window {
            let pitch = window.pitch.map { String(format: "%+.3f°", $0 * 180 / .pi) } ?? "—"
            printError("auto pitch: \(pitch) from \(window.samples) pairs, " + (window.isConverged ? "converged and applied" : "not converged, not applied"))
        }
        if untrained { printError("note: untrained test weights - the tracks are not real vehicles") }
        return 0
    }
}

/// The input stopped part-way; what came before was processed and written (exit status 3).
struct IncompleteInput: Error, CustomStringConvertible {
    let underlying: any Error
    init(_ underlying: any Error) { self.underlying = underlying }
    var description: String { "\(underlying) (input incomplete: the frames before were processed and written)" }
}
