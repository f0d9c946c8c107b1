import Foundation
import Periphery

// A live stream through the engine until it ends or Ctrl-C: `periphery-live-example URL CALIBRATION SECONDS`.
let arguments = CommandLine.arguments
let url = arguments.count > 1 ? arguments[1] : "udp://127.0.0.1:5000"
let seconds = arguments.count > 3 ? Double(arguments[3]) : nil
do {
    let setup = try CalibrationFile.load(path: arguments.count > 2 ? arguments[2] : "calibration.json")
    let engine = try PerceptionEngine(weights: try Safety40Weights(path: "Weights/safety40-synthetic-int8.safetensors"))
    let stop = StopRequest()
    signal(SIGINT, SIG_IGN)
    let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    interrupt.setEventHandler { stop.request() }
    interrupt.resume()
    var source = try LiveFrameSource(
        source: url, kind: .stream, width: setup.intrinsics.width, height: setup.intrinsics.height, stop: stop)
    let sidecar = try ReplaySidecar(path: "live-replay.jsonl", checkpoint: "example", scoreThreshold: 0.5, rejectImplausible: true)
    var options = PerceptionSession.Options()
    options.duration = seconds
    let session = PerceptionSession(engine: engine, setup: setup, outputs: [SidecarOutput(sidecar)], options: options, stop: stop)
    session.onFrame = { frame in
        print(String(format: "t %.2f s: %d tracks, %.0f ms after arrival", frame.frame.timestamp, frame.result.tracks.count, frame.live.latencyMs))
    }
    let summary = try session.run(&source)
    print("summary: \(summary.report)")
} catch {
    print("error: \(error)")
    exit(1)
}
