import CFFmpeg
import CVideo
import Foundation
import PeripheryCore

/// Writes pictures as an H.264 MP4 that ordinary players open: libx264, yuv420p, the index at the
/// front (faststart), each picture at its own time.
///
/// yuv420p needs an even size: a picture with an odd width or height loses its last column or row.
/// The file is `path.partial` until `finish()`, which a failed run calls too, so that the frames
/// written before a failure make a complete, playable video.
public final class VideoWriter {
    /// The file written.
    public let path: String
    /// The encoded frame size (the pictures' size rounded down to even).
    public let width: Int
    public let height: Int
    private var writer: OpaquePointer?
    private let temporaryPath: String
    /// Frames written so far.
    public private(set) var frames = 0

    /// A writer for pictures of `width` × `height` at a nominal `fps`.
    ///
    /// - Throws: `VideoError.unwritable`.
    public init(path: String, width: Int, height: Int, fps: Double) throws(VideoError) {
        self.path = path
        self.width = width & ~1
        self.height = height & ~1
        temporaryPath = path + ".partial"
        var message = [CChar](repeating: 0, count: 512)
        let (w, h, temporary) = (self.width, self.height, temporaryPath)
        let code = message.withUnsafeMutableBufferPointer {
            pv_writer_open(temporary, Int32(w), Int32(h), fps, &writer, $0.baseAddress, Int32($0.count))
        }
        if code != 0 { throw .unwritable(path: path, reason: String(cMessage: message)) }
    }

    deinit {
        pv_writer_close(writer)
    }

    /// Encodes `picture` (at least the writer's size; larger ones are cut at the right and bottom)
    /// shown at `seconds`.
    public func append(_ picture: RGBImage, at seconds: Double) throws(VideoError) {
        guard let writer else { throw .unwritable(path: path, reason: "the video is already finished") }
        guard picture.width >= width, picture.height >= height else {
            throw .unwritable(path: path, reason: "a \(picture.width)x\(picture.height) picture in a \(width)x\(height) video")
        }
        var message = [CChar](repeating: 0, count: 512)
        let code = picture.pixels.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer {
                pv_writer_write(writer, pixels.baseAddress, Int32(picture.width * 3), seconds, $0.baseAddress, Int32($0.count))
            }
        }
        if code != 0 { throw .unwritable(path: path, reason: String(cMessage: message)) }
        frames += 1
    }

    /// Flushes the encoder, writes the index and gives the file its name.
    public func finish() throws(VideoError) {
        guard let writer else { return }
        var message = [CChar](repeating: 0, count: 512)
        let code = message.withUnsafeMutableBufferPointer { pv_writer_finish(writer, $0.baseAddress, Int32($0.count)) }
        pv_writer_close(writer)
        self.writer = nil
        if code != 0 { throw .unwritable(path: path, reason: String(cMessage: message)) }
        guard rename(temporaryPath, path) == 0 else {
            throw .unwritable(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
