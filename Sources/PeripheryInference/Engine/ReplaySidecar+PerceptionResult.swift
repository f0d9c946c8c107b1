import PeripheryCore
import PeripheryIO

extension ReplaySidecar {
    /// Appends one frame of `PerceptionEngine`'s output.
    public mutating func append(pts: Double, ego: EgoDelta, result: PerceptionResult) throws {
        let t = result.timings
        try append(
            pts: pts, ego: ego, detections: result.detections, tracks: result.tracks, calibration: result.calibration,
            timings: [t.preprocess, t.inference, t.backbone, t.gather, t.head, t.decode])
    }
}
