import PeripheryCore
import PeripheryIO

extension FoxgloveRecording {
    /// Records one frame of `PerceptionEngine`'s output with the picture it came from.
    public func append(frame: SourceFrame, result: PerceptionResult, ego: EgoDelta?) throws {
        try append(
            image: frame.image, timestamp: frame.timestamp, ego: ego, detections: result.detections, tracks: result.tracks,
            calibration: result.calibration, timings: result.timings.sidecarMilliseconds)
    }
}
