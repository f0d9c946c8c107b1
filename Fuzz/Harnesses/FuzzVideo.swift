import Foundation
import Periphery

/// Harness: bytes as a video file (FFmpeg probes the container), read to the end or 30 frames.
/// FFmpeg reads files by name, so the bytes go to a scratch file of this process first.
func fuzzVideo(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let path = NSTemporaryDirectory() + "periphery-fuzz-video-\(getpid()).bin"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: bytes, count: count)) else { return 0 }
    defer { try? FileManager.default.removeItem(atPath: path) }
    guard var source = try? VideoFrameSource(path: path) else { return 0 }
    for _ in 0 ..< 30 {
        guard let frame = try? source.next() else { break }
        // A delivered frame must be exactly what the stream claims.
        precondition(
            frame.image.width == source.info.width && frame.image.height == source.info.height
                && frame.image.pixels.count == frame.image.width * frame.image.height * 3 && frame.timestamp.isFinite,
            "frame \(frame.name) is \(frame.image.width)×\(frame.image.height), the stream \(source.info.width)×\(source.info.height)")
    }
    return 0
}
