import PeripheryCore
import PeripheryIO

extension ReplaySidecar {
    /// Appends one frame of `PerceptionEngine`'s output.
    public mutating func append(pts: Double, ego: EgoDelta, result: PerceptionResult) throws {
        try append(
            pts: pts, ego: ego, detections: result.detections, tracks: result.tracks, calibration: result.calibration,
            timings: result.timings.sidecarMilliseconds)
    }
}

extension PerceptionTimings {
    /// The stage timings a sidecar line records, in the order of its header's `timing_ms_fields`.
    package var sidecarMilliseconds: [Double] { [preprocess, inference, detector.backbone, detector.gather, detector.head, detector.decode] }
}
