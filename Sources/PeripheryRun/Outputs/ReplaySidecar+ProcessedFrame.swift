import PeripheryCore
import PeripheryIO
import PeripheryInference

extension ReplaySidecar {
    /// Appends the line of one processed frame: its raw detections, tracks, ego motion (an invalid
    /// zero one when the tracker had none), calibration, stage timings and live fields.
    ///
    /// - Throws: `OutputWriteError`.
    public mutating func append(_ processed: ProcessedFrame) throws {
        let result = processed.result
        try append(
            pts: processed.frame.timestamp, ego: processed.ego ?? EgoDelta(dt: 0, valid: false), detections: result.detections,
            tracks: result.tracks, calibration: result.calibration, timings: result.timings.sidecarMilliseconds, live: processed.live)
    }
}

extension PerceptionTimings {
    /// The stage timings a sidecar line records, in the order of its header's `timing_ms_fields`.
    var sidecarMilliseconds: [Double] { [preprocess, inference, detector.backbone, detector.gather, detector.head, detector.decode] }
}
