import Foundation
import Periphery

/// Harness: bytes as a recorded detection stream, replayed through the tracker with
/// the engine's reset rules (`TrackerReplay`), as `periphery track` does.
func fuzzDetectionStream(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let frames = try? DetectionStream.parse(Data(bytes: bytes, count: count), path: "fuzz") else { return 0 }
    var replay = TrackerReplay()
    for frame in frames {
        for track in replay.step(frame).tracks {
            precondition(track.box.x.isFinite && track.box.y.isFinite && track.box.yaw.isFinite, "track \(track.id) is not finite")
        }
    }
    return 0
}
