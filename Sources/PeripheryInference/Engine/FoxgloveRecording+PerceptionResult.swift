import PeripheryCore
import PeripheryIO

extension FoxgloveRecording {
    /// Records one frame of `PerceptionEngine`'s output with the picture it came from.
    public func append(frame: SourceFrame, result: PerceptionResult, ego: EgoDelta?) throws {
        let t = result.timings
        try append(
            image: frame.image, timestamp: frame.timestamp, ego: ego, detections: result.detections, tracks: result.tracks,
            calibration: result.calibration, timings: [t.preprocess, t.inference, t.backbone, t.gather, t.head, t.decode])
    }
}
