import PeripheryCore
import PeripheryGeometry

/// One processed frame as its Foxglove messages see it: the picture, what the engine made of it,
/// and the run's state at that frame. A value, so that a live server can encode it on another thread.
public struct FoxgloveFrame: Sendable {
    /// The camera picture.
    public var image: RGBImage
    /// The frame's time, seconds (the messages' log time).
    public var timestamp: Double
    /// Its place among the processed frames, from 0.
    public var index: Int
    /// The ego motion the tracker was given (nil: none).
    public var ego: EgoDelta?
    /// The raw detections.
    public var detections: [Detection]
    /// The confirmed tracks after this frame.
    public var tracks: [TrackedVehicle]
    /// The calibration the frame was processed with.
    public var calibration: CameraCalibration
    /// Stage timings, milliseconds, in the sidecar's order.
    public var timings: [Double]
    /// Arrival, latency and drops, as the sidecar's line has them.
    public var live: ReplaySidecar.LiveFields?
    /// The run's counts at this frame.
    public var progress: RunProgress?
    /// The ego's recent path in the current vehicle frame (`FoxgloveEgoPath.advance`).
    public var egoPath: [SIMD3<Double>]

    /// A frame as given.
    public init(
        image: RGBImage, timestamp: Double, index: Int, ego: EgoDelta?, detections: [Detection], tracks: [TrackedVehicle],
        calibration: CameraCalibration, timings: [Double], live: ReplaySidecar.LiveFields? = nil, progress: RunProgress? = nil,
        egoPath: [SIMD3<Double>]
    ) {
        (self.image, self.timestamp, self.index, self.ego, self.detections, self.tracks) = (image, timestamp, index, ego, detections, tracks)
        (self.calibration, self.timings, self.live, self.progress, self.egoPath) = (calibration, timings, live, progress, egoPath)
    }

    /// The log time of its messages, nanoseconds.
    public var logTime: UInt64 {
        let time = Foxglove.Time(seconds: timestamp)
        return UInt64(time.sec) * 1_000_000_000 + UInt64(time.nsec)
    }
}
