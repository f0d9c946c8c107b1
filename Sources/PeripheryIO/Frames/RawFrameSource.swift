import Foundation
import PeripheryCore

/// Raw rgb24 frames of one size read from a file descriptor (standard input by default), e.g. the
/// output of `ffmpeg -f rawvideo -pix_fmt rgb24 -`, timed at a fixed rate from 0.
public struct RawFrameSource: FrameSource {
    /// Frame size in pixels.
    public let width: Int
    public let height: Int
    /// Frames per second.
    public let fps: Double
    /// What messages call the stream.
    public let name: String
    private let descriptor: Int32
    private var index = 0
    /// The last frame's bytes, read into again once its frame is released (no copy then): a fresh
    /// 6 MB array per 1080p frame cost its zero fill and page faults every frame.
    private var bytes: [UInt8] = []

    /// Frames of `width` × `height` at `fps` from `descriptor`.
    public init(width: Int, height: Int, fps: Double, descriptor: Int32 = STDIN_FILENO, name: String = "standard input") {
        self.width = width
        self.height = height
        self.fps = fps
        self.descriptor = descriptor
        self.name = name
    }

    /// Unknown: a stream ends when its input does.
    public var count: Int? { nil }

    /// - Throws: `RawFrameError` when the stream cannot be read or ends inside a frame.
    public mutating func next() throws -> SourceFrame? {
        let size = width * height * 3
        if bytes.count != size { bytes = [UInt8](repeating: 0, count: size) }
        // read(2), not FileHandle, whose read traps on an error such as a directory on stdin.
        let descriptor = descriptor
        let (filled, failure) = bytes.withUnsafeMutableBytes { buffer -> (filled: Int, error: Int32?) in
            guard let base = buffer.baseAddress else { return (0, nil) }
            return FileDescriptorIO.readFully(descriptor, into: base, count: size)
        }
        if let failure { throw RawFrameError.unreadable(stream: name, reason: String(cString: strerror(failure))) }
        if filled == 0 { return nil }
        guard filled == size, let image = RGBImage(width: width, height: height, pixels: bytes) else {
            throw RawFrameError.truncated(stream: name, frame: index, bytes: filled, expected: size)
        }
        defer { index += 1 }
        return SourceFrame(name: "stdin frame \(index)", image: image, timestamp: Double(index) / fps)
    }
}

/// Why a raw frame stream stopped early.
public enum RawFrameError: Error, Equatable, CustomStringConvertible {
    /// Reading failed (`reason` is the system's message).
    case unreadable(stream: String, reason: String)
    /// The stream ended inside frame `frame`, after `bytes` of its `expected` bytes.
    case truncated(stream: String, frame: Int, bytes: Int, expected: Int)

    public var description: String {
        switch self {
        case .unreadable(let stream, let reason): "\(stream): \(reason)"
        case .truncated(let stream, let frame, let bytes, let expected): "\(stream): frame \(frame) ends after \(bytes) of \(expected) bytes"
        }
    }
}
