import PeripheryCore
import PeripheryIO
import PeripheryInference

extension FoxgloveEncoder {
    /// The Foxglove messages of a processed frame, with the ego path the caller keeps (it must see
    /// every frame: `FoxgloveEgoPath`).
    ///
    /// - Throws: `ImageError` if the picture cannot be compressed; `name` names the output in it.
    public func messages(for processed: ProcessedFrame, egoPath: [SIMD3<Double>], name: String) throws -> [Message] {
        let result = processed.result
        return try messages(
            image: processed.frame.image, timestamp: processed.frame.timestamp, index: processed.index, ego: processed.ego,
            detections: result.detections, tracks: result.tracks, calibration: result.calibration,
            timings: result.timings.sidecarMilliseconds, live: processed.live, progress: processed.progress, egoPath: egoPath, name: name)
    }
}
