import PeripheryCore
import PeripheryIO

extension FoxgloveFrame {
    /// A processed frame of a session, as its Foxglove messages see it, with the ego path given.
    public init(_ processed: ProcessedFrame, egoPath: [SIMD3<Double>] = []) {
        let result = processed.result
        self.init(
            image: processed.frame.image, timestamp: processed.frame.timestamp, index: processed.index, ego: processed.ego,
            detections: result.detections, tracks: result.tracks, calibration: result.calibration,
            timings: result.timings.sidecarMilliseconds, live: processed.live, progress: processed.progress, egoPath: egoPath)
    }
}
